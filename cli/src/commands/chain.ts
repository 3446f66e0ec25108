// `presence chain tokens|pools [PAIR]|positions|safety TOKEN`: read-only views, each stamped with a block.
import { readableAmounts, readableUsdIn } from '@presence/client';
import type { Command } from 'commander';
import { apiCommand } from '../api-command';
import { CliError } from '../cli-error';
import type { CliContext } from '../context';
import { exitCodes } from '../exit-codes';

// Depth is an approximate figure: whole dollars, grouped, read better in a column.
const usd = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const bps = (n: number | null) => (n === null ? '-' : `${(n / 100).toFixed(2)}%`);

/**
 * `chain safety SCAM` and `chain safety --token SCAM` say the same (the flag came first and
 * keeps working). Given both, they must agree: which one was meant is not guessed. Checked
 * before the action, so a usage mistake is said as one before any key or server is needed.
 */
function positionalOrFlag(cmd: Command, flag: string, needed?: string) {
  return cmd.hook('preAction', (_self, action) => {
    const given = action.processedArgs[0] as string | undefined;
    const flagged = action.opts()[flag] as string | undefined;
    if (given !== undefined && flagged !== undefined && given !== flagged) {
      throw new CliError('usage', `${given} and --${flag} ${flagged} differ: give the ${flag} once`, exitCodes.usage);
    }
    if (needed && given === undefined && flagged === undefined) throw new CliError('usage', needed, exitCodes.usage);
  });
}

export function registerChain(chain: Command, cli: CliContext) {
  apiCommand(chain, cli, {
    name: 'tokens',
    description: 'known tokens and their USD prices',
    call: (c) => c.chain.view('tokens'),
    show: (v) =>
      `${cli.table(
        [{ header: 'SYMBOL' }, { header: 'PRICE', align: 'right' }, { header: 'DECIMALS', align: 'right' }, { header: 'ADDRESS' }],
        v.tokens.map((t) => [
          t.symbol + (t.stable ? ' (stable)' : ''),
          t.price_usd ? readableUsdIn(t.price_usd) : '-',
          String(t.decimals),
          t.address,
        ]),
      )}\nas of block ${v.as_of_block}`,
  });

  const pools = apiCommand(chain, cli, {
    name: 'pools',
    description: 'pool prices and depth in USD',
    args: [['[pair]', 'one pair, e.g. WETH-USDC']],
    options: [['--pair <pair>', 'the same, as a flag']],
    call: (c, [given], opts: { pair?: string }) => {
      const pair = given ?? opts.pair;
      return c.chain.view('pools', pair ? { pair } : {});
    },
    show: (v) =>
      `${cli.table(
        [{ header: 'PAIR' }, { header: 'PRICE' }, { header: 'DEPTH', align: 'right' }, { header: 'RESERVES' }],
        v.pools.map((p) => [p.pair, p.price, `${usd.format(p.depth_usd)} USD`, Object.values(p.reserves).join(' + ')]),
      )}\nas of block ${v.as_of_block}`,
  });

  apiCommand(chain, cli, {
    name: 'positions',
    description: "the wallet's holdings and LP positions in USD",
    call: (c) => c.chain.view('positions'),
    show: (v) => {
      const rows = [
        ...v.holdings.map((h) => [h.symbol, readableAmounts(h.amount), h.value_usd ? readableUsdIn(h.value_usd) : '-']),
        ...v.lp.map((l) => [`LP ${l.pair}`, Object.values(l.underlying).join(' + '), l.value_usd ? readableUsdIn(l.value_usd) : '-']),
      ];
      return `${cli.table([{ header: 'ASSET' }, { header: 'AMOUNT', align: 'right' }, { header: 'VALUE', align: 'right' }], rows)}\ntotal ${readableUsdIn(v.total_usd)} at block ${v.as_of_block}`;
    },
  });

  const safety = apiCommand(chain, cli, {
    name: 'safety',
    description: 'is a token safe to trade? (measured taxes, mint rights, depth)',
    args: [['[token]', 'a symbol or an address']],
    options: [['--token <token>', 'the same, as a flag']],
    call: (c, [given], opts: { token?: string }) => c.chain.view('safety', { token: given ?? opts.token ?? '' }),
    show: (v) =>
      cli.pairs([
        ['token', `${v.token} (${v.address})`],
        ['verdict', v.verdict],
        ['buy tax', bps(v.measured.buy_tax_bps)],
        ['sell tax', bps(v.measured.sell_tax_bps)],
        ['can mint', v.can_mint ? 'yes' : 'no'],
        ['block', String(v.as_of_block)],
        ...v.reasons.map((r, i): [string, string] => [i === 0 ? 'reasons' : '', `- ${r}`]),
      ]),
  });

  positionalOrFlag(pools, 'pair');
  positionalOrFlag(safety, 'token', `say which token: ${cli.command('chain safety <token>')}`);
}
