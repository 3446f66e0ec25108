// The test server most files want: one for the file's tests, up before them and gone after.
// It speaks vitest's hooks, so it lives outside src/ (nothing under a src/ but a test imports
// the runner: repo-layout.test.ts) and apart from harness.ts, which the benchmarks import.
import { afterAll, beforeAll } from 'vitest';
import { removeDir, startTestServer, type TestServer } from '../src/harness';

/**
 * A test server for the tests of one file (or describe block): started before them, closed
 * and its data removed after. The object answered is filled when the server is up, so use it
 * from tests and hooks, not while the file is being read.
 */
export function useTestServer(options: Parameters<typeof startTestServer>[0] = {}): TestServer {
  const s = {} as TestServer;
  beforeAll(async () => {
    Object.assign(s, await startTestServer(options));
  });
  afterAll(async () => {
    if (!s.close) return;
    await s.close();
    removeDir(s.dataDir);
  });
  return s;
}
