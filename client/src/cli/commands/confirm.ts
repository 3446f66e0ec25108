// `presence confirm list` and `presence confirm <id> --approve|--deny`: the only way a held
// action is resolved. `approveHint` is shared by every command that can produce a held action.
import type { Command } from 'commander';
import { CliError } from '../cli-error';
import type { CliContext } from '../context';
import { exitCodes } from '../exit-codes';
import { renderTable, shortTime } from '../table';

export const approveHint = (confirmId: string) =>
  `approve: presence confirm ${confirmId} --approve\ndeny:    presence confirm ${confirmId} --deny`;

export function registerConfirm(program: Command, cli: CliContext) {
  program
    .command('confirm')
    .description('list held actions, or approve / deny one')
    .usage('list [--all] | <confirm_id> --approve|--deny')
    .argument('[id]', '"list", or a confirm id cf_…')
    .option('--approve', 'execute the held action')
    .option('--deny', 'drop the held action')
    .option('--all', 'with list: every confirmation, not only held ones')
    .action(async (id: string | undefined, opts: { approve?: boolean; deny?: boolean; all?: boolean }, cmd: Command) => {
      if ((id === undefined || id === 'list') && (opts.approve || opts.deny)) {
        // Listing instead would look like success while nothing was answered.
        throw new CliError(
          'usage',
          `--${opts.approve ? 'approve' : 'deny'} needs the confirm id: presence confirm <id> --approve|--deny`,
          exitCodes.usage,
        );
      }
      const client = cli.client();
      if (id === undefined || id === 'list') {
        const r = await client.confirm.list(opts.all ? {} : { status: 'held' });
        cli.print(cmd, r, () =>
          r.confirmations.length === 0
            ? opts.all
              ? 'no confirmations'
              : 'nothing is waiting for you'
            : renderTable(
                [
                  { header: 'CONFIRM ID' },
                  { header: 'STATUS' },
                  { header: 'AMOUNT', align: 'right' },
                  { header: 'EXPIRES (UTC)' },
                  { header: 'SUMMARY' },
                ],
                r.confirmations.map((c) => [c.confirm_id, c.status, c.amount, shortTime(c.expires_at), c.summary]),
              ),
        );
        return;
      }
      if (Boolean(opts.approve) === Boolean(opts.deny)) {
        throw new CliError('usage', `say --approve or --deny: presence confirm ${id} --approve`, exitCodes.usage);
      }
      const r = await client.confirm.answer(id, { approve: Boolean(opts.approve) });
      cli.print(cmd, r, () =>
        r.status === 'executed'
          ? `executed ${r.confirm_id}: tx ${r.tx} (block ${r.block})${r.simulated ? ' — simulated' : ''}`
          : `denied ${r.confirm_id}`,
      );
    });
}
