// `presence wallet`, `presence policy get|set FILE` and `presence intent "<sentence>"`.
import { readFileSync } from 'node:fs';
import { type IntentResult, type PolicyDocument, type PolicyView, readableAmounts, readableSummary, readableUsdIn } from '@presence/client';
import type { Command } from 'commander';
import { apiCommand } from '../api-command';
import { CliError } from '../cli-error';
import type { CliContext } from '../context';
import { exitCodes } from '../exit-codes';
import { shortTime } from '../table';
import { approveHint } from './confirm';

/** Balances for people: amounts rounded to six significant digits as chat does (every digit is in --json). */
export const assetTable = (cli: Pick<CliContext, 'table'>, rows: { symbol: string; amount: string; value_usd: string | null }[]) =>
  cli.table(
    [{ header: 'ASSET' }, { header: 'AMOUNT', align: 'right' }, { header: 'VALUE', align: 'right' }],
    rows.map((b) => [b.symbol, readableAmounts(b.amount), b.value_usd ? readableUsdIn(b.value_usd) : '-']),
  );

/** An intent's answer for people: amounts rounded (every digit is in --json), the amount's USD value beside it. */
export function renderIntent(cli: Pick<CliContext, 'command' | 'pairs'>, r: IntentResult): string {
  const sim = r.simulated ? ' (simulated: nothing was broadcast)' : '';
  const amount = `${readableAmounts(r.amount)}${r.value_usd ? ` (${readableUsdIn(r.value_usd)})` : ''}`;
  if (r.status === 'done')
    return `${cli.pairs([
      ['done', readableSummary(r.summary)],
      ['amount', amount],
      ['tx', `${r.tx} (block ${r.block})`],
    ])}${sim ? `\n${sim.trim()}` : ''}`;
  return `${cli.pairs([
    ['held', readableSummary(r.summary)],
    ['amount', amount],
    ['expires', `${shortTime(r.expires_at)} UTC; silence means no`],
  ])}\n\n${approveHint(cli, r.confirm_id, r.approve_url)}`;
}

function policyPairs(p: PolicyView): [string, string][] {
  const rule = (r: PolicyDocument['deny'][number]) =>
    Object.entries(r)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
  return [
    ['per_tx_cap', p.per_tx_cap],
    ['confirm_over', p.confirm_over],
    ['daily_cap', p.daily_cap],
    ['deny', p.deny.map(rule).join('; ') || '-'],
    ['withdraw_allowlist', p.withdraw_allowlist.join(', ') || '-'],
    ['max_slippage_bps', String(p.max_slippage_bps)],
    ['confirm_timeout_s', String(p.confirm_timeout_s)],
    ['version', `${p.version} (updated ${shortTime(p.updated_at)} UTC)`],
  ];
}

function readPolicyFile(cli: CliContext, file: string): PolicyDocument {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    throw new CliError('usage', `cannot read ${file}: ${(e as Error).message}`, exitCodes.usage);
  }
  try {
    const doc = JSON.parse(text) as PolicyDocument & { version?: unknown; updated_at?: unknown };
    // `policy get --json > file` output is accepted as is: the stored-only fields are dropped.
    const { version: _v, updated_at: _u, ...rest } = doc;
    return rest;
  } catch {
    throw new CliError('usage', `${file} is not JSON; start from \`${cli.command('policy get --json')}\``, exitCodes.usage);
  }
}

export function registerWallet(program: Command, cli: CliContext) {
  apiCommand(program, cli, {
    name: 'wallet',
    description: 'address, balances in USD, spend policy state',
    call: (c) => c.wallet.get(),
    show: (w) => {
      const p = w.policy;
      const head = cli.pairs([
        ['address', w.address],
        ['chain', `${w.chain.name} (${w.chain.id}), block ${w.as_of_block}`],
        ['total', readableUsdIn(w.total_usd)],
        ['spend', readableUsdIn(`${p.spend}: per tx ${p.per_tx_cap}, confirm over ${p.confirm_over}, daily ${p.daily_cap}`)],
        ['today', readableUsdIn(`spent ${p.spent_today}, left ${p.left_today}`)],
        ['pending', w.pending_confirmations === 0 ? 'none' : `${w.pending_confirmations} (${cli.command('confirm list')})`],
      ]);
      const lp =
        w.lp.length === 0
          ? ''
          : `\n\n${cli.table(
              [{ header: 'LP' }, { header: 'UNDERLYING' }, { header: 'VALUE', align: 'right' }],
              w.lp.map((l) => [l.pair, Object.values(l.underlying).join(' + '), l.value_usd ? readableUsdIn(l.value_usd) : '-']),
            )}`;
      return `${head}\n\n${assetTable(cli, w.balances)}${lp}`;
    },
  });

  const policy = program.command('policy').description('show or replace the spend policy');
  apiCommand(policy, cli, {
    name: 'get',
    description: 'the current policy document',
    bare: true,
    call: (c) => c.wallet.policy.get(),
    show: (p) => cli.pairs(policyPairs(p)),
  });
  apiCommand(policy, cli, {
    name: 'set',
    description: 'replace the whole policy with a JSON file (admin); "-" reads stdin',
    args: [['<file>', 'a policy document, e.g. edited output of `presence policy get --json`']],
    call: (c, [file]) => c.wallet.policy.set(readPolicyFile(cli, file)),
    show: (p) => `stored policy version ${p.version}\n\n${cli.pairs(policyPairs(p))}`,
    noteIfTest: true,
  });

  apiCommand(program, cli, {
    name: 'intent',
    description: 'ask for an on-chain action in a sentence; bounded by the policy',
    // Variadic, as chat's text: `intent swap 5 USDC for WETH` is the sentence, quoted or not.
    args: [['<sentence...>', 'e.g. "swap 50 USDC for WETH" (quotes optional)']],
    call: (c, [words]) => c.wallet.intent({ do: ([] as string[]).concat(words).join(' ') }),
    show: (r) => renderIntent(cli, r),
  });
}
