// `presence standing list|cancel ID`: standing intents (made by talking: "tell me when …").
import type { Command } from 'commander';
import { apiCommand } from '../api-command';
import type { CliContext } from '../context';
import { shortTime } from '../table';

export function registerStanding(program: Command, cli: CliContext) {
  const standing = program.command('standing').description('list and cancel standing intents');

  apiCommand(standing, cli, {
    name: 'list',
    description: 'active standing intents',
    call: (c) => c.standing.list(),
    show: (r) =>
      r.standing.length === 0
        ? `no standing intents; make one by talking, e.g. ${cli.command('chat "tell me when WETH is below 2500 USD"')}`
        : cli.table(
            [{ header: 'ID' }, { header: 'FIRED', align: 'right' }, { header: 'LAST FIRED' }, { header: 'CREATED' }, { header: 'TEXT' }],
            r.standing.map((s) => [s.id, String(s.fired_count), shortTime(s.last_fired_at), shortTime(s.created_at), s.text]),
          ),
  });

  apiCommand(standing, cli, {
    name: 'cancel',
    description: 'cancel one',
    args: [['<id>', 'standing id, st_…']],
    call: (c, [id]) => c.standing.cancel(id),
    show: (r) => `cancelled ${r.id}: "${r.text}"`,
    noteIfTest: true,
  });
}
