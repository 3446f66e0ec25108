// `presence standing list|cancel ID`: standing intents (made by talking: "tell me when …").
import type { Command } from 'commander';
import { apiCommand } from '../api-command';
import type { CliContext } from '../context';
import { listCommand } from '../list-command';
import { shortTime } from '../table';

export function registerStanding(standing: Command, cli: CliContext) {
  listCommand(standing, cli, {
    description: 'active standing intents',
    bare: true,
    call: (c) => c.standing.list(),
    records: (r) => r.standing,
    columns: ['ID', { header: 'FIRED', align: 'right' }, 'LAST FIRED', 'CREATED', 'TEXT'],
    row: (s) => [s.id, String(s.fired_count), shortTime(s.last_fired_at), shortTime(s.created_at), s.text],
    empty: `no standing intents; make one by talking, e.g. ${cli.command('chat "tell me when WETH is below 2500 USD"')}`,
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
