// The test server most files want: one for the file's tests, up before them and gone after.
// Apart from harness.ts because it speaks vitest's hooks, which the benchmarks (they import
// the harness) run without.
import { afterAll, beforeAll } from 'vitest';
import { removeDir, startTestServer, type TestServer } from './harness';

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
