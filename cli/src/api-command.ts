// A subcommand that is one call to the API, declared as what it is: its name and description,
// the arguments and options it takes, the call, and how the answer reads for people (with
// --json it is printed as the server sent it). What every such command did alike is here once:
// Commander's chain, the client, printing the answer, and after a write telling a test key's
// user that nothing was stored. Commands that do more than one call and a print (chat, events,
// listen, login, confirm's answer) stay written out; one that lists records is a listCommand
// (list-command.ts), which builds its answer for people from columns and rows.
import type { PresenceClient } from '@presence/client';
import { type Command, Option } from 'commander';
import { bareRead } from './bare-group';
import type { CliContext } from './context';

/** `[flags, description, parse?]`, as Commander's `.option()` takes them. */
export type OptionSpec = readonly [flags: string, description: string, parse?: (value: string) => unknown];

export type ArgSpec = readonly [name: string, description: string];

export type ApiCommand<R, O, A extends readonly ArgSpec[]> = {
  name: string;
  description: string;
  /** Positional arguments, `['<id>', 'key id, key_…']`, in order: the call gets their values. */
  args?: A;
  /** Options it must be given (listed first), then those it may be. */
  required?: readonly OptionSpec[];
  options?: readonly OptionSpec[];
  call: (client: PresenceClient, args: { [K in keyof A]: string }, opts: O) => Promise<R>;
  /** The answer for people. */
  show: (r: R) => string;
  /** A write: with a test key it was simulated, and the user is told so. */
  noteIfTest?: true;
  /** The group's obvious read, run when the group is typed bare too (bare-group.ts); it takes no arguments. */
  bare?: true;
};

const optionOf = ([flags, description, parse]: OptionSpec, required: boolean) => {
  const option = new Option(flags, description).makeOptionMandatory(required);
  return parse ? option.argParser(parse) : option;
};

export function apiCommand<R, O = Record<string, never>, const A extends readonly ArgSpec[] = []>(
  parent: Command,
  cli: CliContext,
  spec: ApiCommand<R, O, A>,
): Command {
  const cmd = parent.command(spec.name, { isDefault: spec.bare === true }).description(spec.description);
  if (spec.bare) bareRead(parent, cmd);
  for (const [name, description] of spec.args ?? []) cmd.argument(name, description);
  for (const o of spec.required ?? []) cmd.addOption(optionOf(o, true));
  for (const o of spec.options ?? []) cmd.addOption(optionOf(o, false));
  // Commander passes the arguments' values, then the options, then the command itself.
  return cmd.action(async (...given: unknown[]) => {
    const self = given.at(-1) as Command;
    const opts = given.at(-2) as O;
    const r = await spec.call(cli.client(), given.slice(0, -2) as { [K in keyof A]: string }, opts);
    cli.print(self, r, () => spec.show(r));
    if (spec.noteIfTest) cli.noteIfTest();
  });
}
