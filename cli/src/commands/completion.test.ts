// The bash completion script, sourced into a real bash: completes commands, subcommands past
// arguments, and options, from the same command tree --help prints.
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { createContext } from '../context';
import { createProgram } from '../program';
import { bashCompletion, zshCompletion } from './completion';

const program = createProgram(createContext({ env: {}, stdout: () => {}, stderr: () => {} }));

/** What bash offers for `line`, through the function `complete` bound to its first word. */
function complete(line: string): string[] {
  const words = line.split(' ');
  const script = `${bashCompletion(program)}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
f=$(complete -p ${words[0]} | sed -E 's/.*-F ([^ ]+).*/\\1/'); $f; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['--norc', '-c', script], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean).sort();
}

it('bash: commands, subcommands and options at each level', () => {
  expect(complete('presence me')).toEqual(['me', 'memory']);
  expect(complete('presence memory p')).toEqual(['pin']);
  expect(complete('presence --json memory ')).toEqual(['forget', 'list', 'pin']);
  expect(complete('presence memory pin --n')).toEqual(['--note']);
  expect(complete('presence completion ')).toEqual([]);
  expect(complete('presence --v')).toEqual(['--version']);
});

it('bash: npx presence as presence (every example in the README), and npx alone left to files', () => {
  expect(complete('npx presence me')).toEqual(['me', 'memory']);
  expect(complete('npx presence memory pin --n')).toEqual(['--note']);
  expect(complete('npx pres')).toEqual([]);
});

it('bash: flags after an argument, the program-wide ones included', () => {
  expect(complete('presence confirm cf_123 --a')).toEqual(['--approve']);
  expect(complete('presence memory pin pair:WETH-USDC --n')).toEqual(['--note']);
  expect(complete('presence chat hello --a')).toEqual(['--act']);
  expect(complete('presence memory list --j')).toEqual(['--json']);
  expect(complete('presence keys list --he')).toEqual(['--headers', '--help']);
});

it('zsh: every command path with its described subcommands, loaded with compdef', () => {
  const script = zshCompletion(program);
  expect(script).toMatch(/^#compdef presence\n/);
  expect(script).toContain(`'presence memory') items=('list:`);
  expect(script).toContain("'pin:");
  expect(script).toContain('\'presence confirm\') node="$node answer"');
  expect(script.trimEnd().endsWith('compdef _presence presence\ncompdef _presence_npx npx')).toBe(true);
});
