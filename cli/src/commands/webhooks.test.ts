// `webhooks update` refusing contradictory flags, in process: the refusal comes before any
// request, so no server is needed. It once exited 2 with nothing on stderr at all.
import { expect, it } from 'vitest';
import { runCli } from '../run';

it('update with both --enable and --disable says why, in the one-line usage form', async () => {
  let stderr = '';
  const code = await runCli(['webhooks', 'update', 'wh_aaaaaaaaaaaaaaaa', '--enable', '--disable'], {
    env: { PRESENCE_TOKEN: `prs_live_${'a'.repeat(40)}`, PRESENCE_URL: 'http://127.0.0.1:9' },
    stdout: () => {},
    stderr: (s) => {
      stderr += s;
    },
  });
  expect([code, stderr]).toEqual([2, 'error: usage — give --enable or --disable, not both\n']);
});
