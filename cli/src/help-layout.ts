// What `presence --help` adds after Commander's sections (every command, the environment, the
// exit codes), laid out within the width Commander wraps its own to: at most 80 columns, fewer
// on a narrower terminal. Each command is its usage on a line (options carried over whole,
// never split inside `[--key <key>]`) and its description under it: the usages are too long
// for a column beside the descriptions in 80 columns.
import type { Command } from 'commander';

/** Help is never wider than this, however wide the terminal: longer lines read badly. */
export const HELP_WIDTH = 80;
/** Below this, wrapping makes more lines than it saves columns (Commander's own floor). */
const NARROWEST = 40;

/** The width to lay help out in on `stream`: its columns when it is a terminal, capped at HELP_WIDTH. */
export function helpWidth(stream: { isTTY?: boolean; columns?: number }): number {
  const columns = stream.isTTY && stream.columns ? stream.columns : HELP_WIDTH;
  return Math.max(NARROWEST, Math.min(HELP_WIDTH, columns));
}

/**
 * `chunks` joined by spaces in lines of at most `width` columns, the first after `first`, the
 * rest after `rest`. A chunk longer than a line stands alone on its own.
 */
export function wrapChunks(chunks: readonly string[], width: number, first: string, rest: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const chunk of chunks) {
    const indent = lines.length === 0 ? first : rest;
    if (line === '') line = chunk;
    else if (indent.length + line.length + 1 + chunk.length <= width) line += ` ${chunk}`;
    else {
      lines.push(indent + line);
      line = chunk;
    }
  }
  lines.push((lines.length === 0 ? first : rest) + line);
  return lines;
}

/** Commands whose forms the generic usage cannot say. */
const customUsages: Record<string, string[][]> = {
  'presence confirm answer': [['presence', 'confirm', '<id>', '--approve|--deny']],
};

/** `presence memory pin <key> [--note <note>]` for every runnable command, so one --help shows them all. */
export function commandIndex(cmd: Command, width: number, prefix = 'presence'): string[] {
  return cmd.commands
    .filter((c) => c.name() !== 'help')
    .flatMap((c) => {
      const name = `${prefix} ${c.name()}`;
      if (c.commands.length > 0) return commandIndex(c, width, name);
      const args = c.registeredArguments.map((a) => {
        const n = a.name() + (a.variadic ? '...' : '');
        return a.required ? `<${n}>` : `[${n}]`;
      });
      const opts = c.options.filter((o) => o.long !== '--help').map((o) => (o.mandatory ? o.flags : `[${o.flags}]`));
      const usages = customUsages[name] ?? [[...name.split(' '), ...args, ...opts]];
      const description = wrapChunks(c.description().split(' '), width, '      ', '      ');
      return [...usages.flatMap((u) => wrapChunks(u, width, '  ', '    ')), ...description];
    });
}

/** `Exit codes: 0 success, 1 other, …` from `classes`, continued on indented lines. */
export function exitCodesText(classes: Record<number, string>, width: number): string {
  const items = Object.entries(classes).map(([code, what], i, all) => `${code} ${what}${i < all.length - 1 ? ',' : ''}`);
  // The items' own spaces are kept: "2 usage or invalid input" moves to the next line whole.
  return wrapChunks(['Exit codes:', ...items], width, '', '  ').join('\n');
}
