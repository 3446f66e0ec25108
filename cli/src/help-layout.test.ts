import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createContext } from './context';
import { HELP_WIDTH, helpWidth, wrapChunks } from './help-layout';
import { createProgram } from './program';
import { runCli } from './run';

/** Every command path of the tree, the program itself first ([]), groups and their subcommands after. */
function commandPaths(): string[][] {
  const paths: string[][] = [[]];
  const walk = (cmd: Command, at: string[]) => {
    for (const sub of cmd.commands.filter((c) => c.name() !== 'help')) {
      paths.push([...at, sub.name()]);
      walk(sub, [...at, sub.name()]);
    }
  };
  walk(createProgram(createContext({ env: {}, stdout: () => {}, stderr: () => {} })), []);
  return paths;
}

async function helpOf(path: string[]): Promise<string> {
  let out = '';
  const code = await runCli([...path, '--help'], { env: {}, stdout: (s) => (out += s), stderr: (s) => (out += s) });
  expect(code, `presence ${path.join(' ')} --help`).toBe(0);
  return out;
}

describe('presence --help fits in 80 columns', () => {
  it.each(commandPaths().map((p) => [p.join(' ') || '(the program)', p] as const))('%s --help', async (_name, path) => {
    const help = await helpOf(path);
    const over = help.split('\n').filter((line) => line.length > HELP_WIDTH);
    expect(over).toEqual([]);
  });

  it('lays the longest usage out on more lines, each option whole, with the description under it', async () => {
    const help = await helpOf([]);
    expect(help).toContain(
      [
        '  presence webhooks update <id> [--url <url>] [--events <types>]',
        '    [--description <text>] [--enable] [--disable]',
        '      change an endpoint: url, events, description, or enable/disable it',
      ].join('\n'),
    );
    expect(help).toContain(
      'Exit codes: 0 success, 1 other, 2 usage or invalid input, 3 auth, 4 scope,\n  5 refused (policy or state), 6 network or unavailable, 7 not found',
    );
  });

  it('is never wider than 80 columns on a wide terminal, and follows a narrower one', () => {
    expect(helpWidth({ isTTY: true, columns: 200 })).toBe(80);
    expect(helpWidth({ isTTY: true, columns: 60 })).toBe(60);
    expect(helpWidth({ isTTY: false, columns: 200 })).toBe(80);
    expect(helpWidth({ isTTY: true, columns: 10 })).toBe(40);
  });

  it('wraps chunks whole, indenting the lines after the first', () => {
    expect(wrapChunks(['aaaa', 'bbbb', 'cccc'], 11, '  ', '    ')).toEqual(['  aaaa bbbb', '    cccc']);
    expect(wrapChunks(['a-chunk-longer-than-the-line'], 10, '', '')).toEqual(['a-chunk-longer-than-the-line']);
  });
});
