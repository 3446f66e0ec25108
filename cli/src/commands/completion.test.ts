// The bash completion script, sourced into a real bash: completes commands, subcommands past
// arguments, and options, from the same command tree --help prints.
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { createContext } from '../context';
import { createProgram } from '../program';
import { bashCompletion, zshCompletion } from './completion';

const program = createProgram(createContext({ env: {}, stdout: () => {}, stderr: () => {} }));

function complete(line: string): string[] {
  const words = line.split(' ');
  const script = `${bashCompletion(program)}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_presence; printf '%s\\n' "\${COMPREPLY[@]}"`;
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

it('zsh: every command path with its described subcommands, loaded with compdef', () => {
  const script = zshCompletion(program);
  expect(script).toMatch(/^#compdef presence\n/);
  expect(script).toContain(`'presence memory') items=('list:`);
  expect(script).toContain("'pin:");
  expect(script.trimEnd().endsWith('compdef _presence presence')).toBe(true);
});
