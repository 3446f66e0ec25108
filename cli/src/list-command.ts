// A subcommand that lists records: one call to the API whose answer for people is a table, a
// row per record, or a hint when there is nothing to list. What every list did alike is here
// once (the empty check, the table in this run's layout); a list command declares only which
// records it lists, its columns, a record's cells and what to say when there are none.
import type { Command } from 'commander';
import { type ApiCommand, type ArgSpec, apiCommand } from './api-command';
import type { CliContext } from './context';
import type { Column } from './table';

export type ListCommand<R, T, O, A extends readonly ArgSpec[]> = Omit<ApiCommand<R, O, A>, 'show' | 'noteIfTest' | 'name'> & {
  /** The subcommand's name: `list` unless said (a group's listing is its `list`). */
  name?: string;
  /** The records in the answer, in the order they are listed. */
  records: (r: R) => readonly T[];
  /** A bare header is a left-aligned column; a number column says `{ header, align: 'right' }`. */
  columns: readonly (string | Column)[];
  /** A record's cells, one per column. */
  row: (record: T) => string[];
  /** What to print when there are no records, e.g. how to make one; without it the table is printed, empty. */
  empty?: string;
};

export function listCommand<R, T, O = Record<string, never>, const A extends readonly ArgSpec[] = []>(
  parent: Command,
  cli: CliContext,
  { name = 'list', records, columns, row, empty, ...spec }: ListCommand<R, T, O, A>,
): Command {
  const header = columns.map((c): Column => (typeof c === 'string' ? { header: c } : c));
  return apiCommand(parent, cli, {
    ...spec,
    name,
    show: (r) => {
      const listed = records(r);
      return listed.length === 0 && empty !== undefined ? empty : cli.table(header, listed.map(row));
    },
  });
}
