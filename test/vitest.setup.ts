// Runs in every test file before its tests: registers the file's last clean-up (the shared
// PostgreSQL cluster of test-database.ts, when the file started one). Kept out of src/ so the
// harness imports no test runner (the benchmarks import it under plain tsx).
import { afterAll } from 'vitest';
import { stopTestCluster } from './src/test-database';

afterAll(stopTestCluster);
