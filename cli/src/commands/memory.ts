// `presence memory list|pin|forget`.
import type { Command } from 'commander';
import { apiCommand } from '../api-command';
import type { CliContext } from '../context';
import { listCommand } from '../list-command';

export function registerMemory(memory: Command, cli: CliContext) {
  listCommand(memory, cli, {
    description: 'pinned and fading keywords',
    bare: true,
    call: (c) => c.memory.list(),
    records: (m) => [...m.pinned, ...m.fading],
    columns: ['KEY', 'TIER', { header: 'WEIGHT', align: 'right' }, { header: 'DAYS LEFT', align: 'right' }, 'NOTE'],
    row: (e) => [e.key, e.tier, e.weight.toFixed(2), e.days_left === null ? '-' : String(e.days_left), e.note],
    empty: 'nothing remembered yet',
  });

  apiCommand(memory, cli, {
    name: 'pin',
    description: 'pin a keyword so it never fades (a repeat changes nothing)',
    args: [['<key>', 'keyword as <namespace>:<name>, namespace token, pair, addr, topic or pref']],
    options: [['--note <note>', 'why it matters']],
    call: (c, [key], opts: { note?: string }) => c.memory.pin({ key, note: opts.note }),
    show: (r) => (r.changed ? `pinned ${r.key}` : `${r.key} was already pinned`),
    noteIfTest: true,
  });

  apiCommand(memory, cli, {
    name: 'forget',
    description: 'forget a keyword at once',
    args: [['<key>', 'keyword as <namespace>:<name>']],
    call: (c, [key]) => c.memory.forget(key),
    show: (r) => `forgot ${r.key}`,
    noteIfTest: true,
  });
}
