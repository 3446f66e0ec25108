// `presence memory list|pin|forget`.
import type { Command } from 'commander';
import type { CliContext } from '../context';

export function registerMemory(program: Command, cli: CliContext) {
  const memory = program.command('memory').description('list, pin and forget remembered keywords');

  memory
    .command('list')
    .description('pinned and fading keywords')
    .action(async (_opts: unknown, cmd: Command) => {
      const m = await cli.client().memory.list();
      cli.print(cmd, m, () => {
        const rows = [...m.pinned, ...m.fading].map((e) => [
          e.key,
          e.tier,
          e.weight.toFixed(2),
          e.days_left === null ? '-' : String(e.days_left),
          e.note,
        ]);
        if (rows.length === 0) return 'nothing remembered yet';
        return cli.table(
          [
            { header: 'KEY' },
            { header: 'TIER' },
            { header: 'WEIGHT', align: 'right' },
            { header: 'DAYS LEFT', align: 'right' },
            { header: 'NOTE' },
          ],
          rows,
        );
      });
    });

  memory
    .command('pin')
    .description('pin a keyword so it never fades (a repeat changes nothing)')
    .argument('<key>', 'keyword as <namespace>:<name>, namespace token, pair, addr, topic or pref')
    .option('--note <note>', 'why it matters')
    .action(async (key: string, opts: { note?: string }, cmd: Command) => {
      const r = await cli.client().memory.pin({ key, note: opts.note });
      cli.print(cmd, r, () => (r.changed ? `pinned ${r.key}` : `${r.key} was already pinned`));
      cli.noteIfTest();
    });

  memory
    .command('forget')
    .description('forget a keyword at once')
    .argument('<key>', 'keyword as <namespace>:<name>')
    .action(async (key: string, _opts: unknown, cmd: Command) => {
      const r = await cli.client().memory.forget(key);
      cli.print(cmd, r, () => `forgot ${r.key}`);
      cli.noteIfTest();
    });
}
