// `presence confirm list` and `presence confirm <id> --approve|--deny`: the only way a held
// action is resolved. Two subcommands, each with its own help; the answering one is the
// default, so `confirm <id>` needs no subcommand name. `approveHint` is shared by every
// command that can produce a held action.
import { type ConfirmationView, PresenceApiError, readableAmounts, readableSummary, readableUsdIn } from '@presence/client';
import { type Command, Help } from 'commander';
import { CliError } from '../cli-error';
import type { CliContext } from '../context';
import { exitCodes } from '../exit-codes';
import { wholeNumber } from '../option-values';
import { type Column, shortTime } from '../table';

/** How to answer a hold; one over passkey_over (`approveUrl`) is approved on its page, with a passkey. */
export const approveHint = (cli: Pick<CliContext, 'command'>, confirmId: string, approveUrl?: string) =>
  approveUrl
    ? `approve: open ${approveUrl} (a passkey is needed: it is over your passkey_over)\ndeny:    ${cli.command(`confirm ${confirmId} --deny`)}`
    : `approve: ${cli.command(`confirm ${confirmId} --approve`)}\ndeny:    ${cli.command(`confirm ${confirmId} --deny`)}`;

/** `--approve` on a hold over passkey_over: the page to approve it on, said plainly (exit code 5). */
function passkeyNeeded(cli: Pick<CliContext, 'command'>, id: string, e: unknown): CliError | null {
  if (!(e instanceof PresenceApiError) || e.type !== 'passkey_required') return null;
  const url = e.problem.approve_url;
  return new CliError(
    'passkey_required',
    `${id} is over your passkey_over, so it is approved with a passkey, not here: open ${typeof url === 'string' ? url : 'its approve_url'} on a device with your passkey (or deny it: ${cli.command(`confirm ${id} --deny`)})`,
    exitCodes.policy,
  );
}

export function registerConfirm(confirm: Command, cli: CliContext) {
  // In `confirm --help` the answering subcommand reads as it is typed: `<id> --approve|--deny`.
  const help = new Help();
  confirm.configureHelp({
    ...confirm.configureHelp(),
    subcommandTerm: (c) => (c.name() === 'answer' ? '<id> --approve|--deny' : help.subcommandTerm(c)),
  });
  // Said as every group with a bare read says it (bare-group.ts); here the answering subcommand is the default.
  confirm.addHelpText('after', '\nTyped bare, `presence confirm` runs `presence confirm list`.');

  confirm
    .command('list')
    .description('held actions waiting for your answer')
    .option('--all', 'every confirmation, not only held ones')
    .option('--limit <n>', 'the newest n (default 50, max 200)', wholeNumber())
    .action((opts: { all?: boolean; limit?: number }, cmd: Command) => list(cli, cmd, Boolean(opts.all), opts.limit));

  // Named `answer` for Commander (and `confirm answer <id>` works too), shown as `confirm <id>`.
  confirm
    .command('answer', { isDefault: true })
    .description('approve or deny one held action (--approve executes it, --deny drops it)')
    .usage('<confirm_id> --approve|--deny')
    .argument('[id]', 'the confirm id, cf_…')
    .option('--approve', 'execute the held action')
    .option('--deny', 'drop the held action')
    .action(async (id: string | undefined, opts: { approve?: boolean; deny?: boolean }, cmd: Command) => {
      if (id === undefined) {
        // A bare `confirm` has always listed what is held; a flag without an id must not look like that.
        if (!opts.approve && !opts.deny) return list(cli, cmd, false);
        throw new CliError(
          'usage',
          `--${opts.approve ? 'approve' : 'deny'} needs the confirm id: ${cli.command('confirm <id> --approve|--deny')}`,
          exitCodes.usage,
        );
      }
      if (Boolean(opts.approve) === Boolean(opts.deny)) {
        throw new CliError('usage', `say --approve or --deny: ${cli.command(`confirm ${id} --approve`)}`, exitCodes.usage);
      }
      const r = await cli
        .client()
        .confirm.answer(id, { approve: Boolean(opts.approve) })
        .catch((e: unknown) => {
          throw passkeyNeeded(cli, id, e) ?? e;
        });
      cli.print(cmd, r, () =>
        r.status === 'executed'
          ? `executed ${r.confirm_id}: tx ${r.tx} (block ${r.block})${r.simulated ? ' — simulated' : ''}`
          : `denied ${r.confirm_id}`,
      );
    });
}

async function list(cli: CliContext, cmd: Command, all: boolean, limit?: number) {
  const r = await cli.client().confirm.list({ ...(all ? {} : { status: 'held' as const }), limit });
  cli.print(cmd, r, () =>
    r.confirmations.length === 0
      ? all
        ? 'no confirmations'
        : 'nothing is waiting for you'
      : cli.table(CONFIRM_COLUMNS, confirmationRows(r.confirmations)),
  );
}

export const CONFIRM_COLUMNS: Column[] = [
  { header: 'CONFIRM ID' },
  { header: 'STATUS' },
  { header: 'AMOUNT', align: 'right' },
  { header: 'VALUE', align: 'right' },
  { header: 'EXPIRES (UTC)' },
  { header: 'SUMMARY' },
];

/** The `confirm list` rows: amounts rounded for people (a quote's every digit is in --json). */
export const confirmationRows = (confirmations: ConfirmationView[]): string[][] =>
  confirmations.map((c) => [
    c.confirm_id,
    c.status,
    readableAmounts(c.amount),
    c.value_usd ? readableUsdIn(c.value_usd) : '-',
    shortTime(c.expires_at),
    readableSummary(c.summary),
  ]);
