// Wallet: address, balances priced in USD, total, the spend policy's label and caps, and
// the block all of it was read at. Refreshed by hand or when a transaction lands.
import { type PresenceClient, readableAmounts, type WalletView } from '@presence/client';
import { formatAmount, spendLabels } from '../lib/format';
import { Card } from './Card';
import { CopyButton } from './CopyButton';
import { usePresenceEvents, useResource } from './hooks';
import { Empty, ErrorNote, Loading } from './states';

/** "10 ETH" in the ETH row reads as "10": the row already names the token. */
const withoutUnit = (amount: string, symbol: string) => (amount.endsWith(` ${symbol}`) ? amount.slice(0, -symbol.length - 1) : amount);

export function WalletTab({ client }: { client: PresenceClient }) {
  const { state, reload, refreshing, refreshError } = useResource((signal) => client.wallet.get({ signal }));
  usePresenceEvents((event) => {
    if (event.type === 'tx' || (event.type === 'confirm' && event.data.status === 'executed')) void reload();
  });

  if (state.status === 'loading') return <Loading label="Reading the wallet…" />;
  if (state.status === 'error') return <ErrorNote error={state.error} onRetry={() => void reload()} />;
  const w = state.data;
  return (
    <div className="wallet">
      <Card
        title={
          <>
            Address <span className="muted small">on {w.chain.name}</span>
          </>
        }
      >
        <div className="address-row">
          <code data-testid="wallet-address" className="address">
            {w.address}
          </code>
          <CopyButton value={w.address} label="Copy address" testId="wallet-copy" />
        </div>
      </Card>

      <Card title="Total" className="total">
        <p className="total-value" data-testid="wallet-total">
          {formatAmount(w.total_usd)}
        </p>
        <p className="muted small" data-testid="wallet-block">
          as of block {w.as_of_block}
          {refreshing ? ' · refreshing…' : ''}
        </p>
      </Card>

      <BalancesCard wallet={w} />
      <SpendingCard policy={w.policy} />

      {refreshError ? <ErrorNote error={refreshError} /> : null}
      <button type="button" className="secondary" onClick={() => void reload()} disabled={refreshing}>
        Refresh
      </button>
    </div>
  );
}

/** Each token's amount and value, then any LP positions. */
function BalancesCard({ wallet: w }: { wallet: WalletView }) {
  return (
    <Card title="Balances">
      {w.balances.length === 0 ? (
        <Empty title="No tokens yet" />
      ) : (
        <table className="balances">
          <thead>
            <tr>
              <th scope="col">Token</th>
              <th scope="col" className="num">
                Amount
              </th>
              <th scope="col" className="num">
                Value
              </th>
            </tr>
          </thead>
          <tbody>
            {w.balances.map((b) => (
              <tr key={b.address ?? b.symbol} data-testid="wallet-balance">
                <th scope="row">{b.symbol}</th>
                {/* Rounded for people; every digit on hover. */}
                <td className="num" title={b.amount}>
                  {formatAmount(readableAmounts(withoutUnit(b.amount, b.symbol)))}
                </td>
                <td className="num">{b.value_usd === null ? <span className="muted">no price</span> : formatAmount(b.value_usd)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {w.lp.length > 0 ? (
        <ul className="lp">
          {w.lp.map((p) => (
            <li key={p.pair}>
              LP {p.pair}: {p.value_usd === null ? 'no price' : formatAmount(p.value_usd)}
            </li>
          ))}
        </ul>
      ) : null}
    </Card>
  );
}

/** The spend policy's label and its caps, with what is left today. */
function SpendingCard({ policy }: { policy: WalletView['policy'] }) {
  const label = spendLabels[policy.spend];
  return (
    <Card
      title={
        <>
          Spending <span className={`pill spend-${policy.spend}`}>{label.title}</span>
        </>
      }
    >
      <p className="muted small">{label.detail}</p>
      <dl className="caps">
        <dt>Per action</dt>
        <dd>{formatAmount(policy.per_tx_cap)}</dd>
        <dt>Approval over</dt>
        <dd>{formatAmount(policy.confirm_over)}</dd>
        <dt>Daily cap</dt>
        <dd>{formatAmount(policy.daily_cap)}</dd>
        <dt>Spent today</dt>
        <dd>{formatAmount(policy.spent_today)}</dd>
        <dt>Left today</dt>
        <dd>{formatAmount(policy.left_today)}</dd>
      </dl>
    </Card>
  );
}
