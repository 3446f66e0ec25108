// A group typed bare runs its obvious read, the way a bare `presence confirm` lists what waits:
// `presence memory` lists, `presence policy` shows the policy. The mechanism is Commander's
// default subcommand (`isDefault`, as confirm's answer is); a group without an obvious read
// (chain) has none and keeps printing its help. `<group> --help` still shows the group's help.
import type { Command } from 'commander';

/** Commander's own "unknown command 'x' (Did you mean …?)"; not in its typings, so reached this way. */
type WithUnknown = { unknownCommand(): never };

/** `presence memory`: the command as typed, from the root down. */
const typed = (cmd: Command): string => (cmd.parent ? `${typed(cmd.parent)} ${cmd.name()}` : cmd.name());

/**
 * Makes `read` (already made with `isDefault`) the group's bare read: the group's --help says so,
 * and a word the group does not know stays an unknown command. Commander hands a default
 * subcommand every word the group does not know, so `memory pni` would read "too many arguments
 * for 'list'"; a read that takes no arguments is only ever run bare, so a word there is a
 * mistyped subcommand and is said so, with Commander's "(Did you mean …?)".
 */
export function bareRead(group: Command, read: Command) {
  group.addHelpText('after', () => `\nTyped bare, \`${typed(group)}\` runs \`${typed(read)}\`.`);
  group.hook('preSubcommand', (self, sub) => {
    const word = self.args[0];
    if (sub !== read || word === undefined || word.startsWith('-') || word === read.name()) return;
    (self as unknown as WithUnknown).unknownCommand();
  });
}
