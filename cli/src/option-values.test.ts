// How a refused option or argument value reads: one sentence saying what was wanted, not
// Commander's bare "is invalid. a whole number". Parse errors come before any request, so no
// server is needed.
import { expect, it } from 'vitest';
import { runCli } from './run';

async function usage(argv: string[]) {
  let stderr = '';
  const code = await runCli(argv, {
    env: { PRESENCE_TOKEN: `prs_live_${'a'.repeat(40)}`, PRESENCE_URL: 'http://127.0.0.1:9' },
    stdout: () => {},
    stderr: (s) => {
      stderr += s;
    },
  });
  return [code, stderr];
}

it('a value that is not a whole number says what was expected', async () => {
  expect(await usage(['events', '--since', 'abc'])).toEqual([
    2,
    "error: usage — option '--since <id>' argument 'abc' is invalid: expected a whole number (see --help)\n",
  ]);
  expect(await usage(['keys', 'rotate', 'key_aaaaaaaaaaaaaaaa', '--grace', '1.5'])).toEqual([
    2,
    "error: usage — option '--grace <seconds>' argument '1.5' is invalid: expected a whole number of seconds (see --help)\n",
  ]);
});

it('a URL, a shell and a scope list that do not parse read the same way', async () => {
  expect((await usage(['listen', '--forward-to', 'ftp://x']))[1]).toBe(
    "error: usage — option '--forward-to <url>' argument 'ftp://x' is invalid: expected an http(s) URL, e.g. http://localhost:3000/hook (see --help)\n",
  );
  expect((await usage(['completion', 'fish']))[1]).toBe(
    "error: usage — command-argument value 'fish' is invalid for argument 'shell': expected bash or zsh (see --help)\n",
  );
  expect((await usage(['keys', 'create', '--name', 'x', '--scopes', ',']))[1]).toMatch(/ is invalid: give at least one scope/);
});
