// Pending: held actions with a live countdown and Approve / Deny. An answered item stays in
// the list with its outcome (the transaction hash when executed) until the popup closes.
// Answers given elsewhere (a bot, the CLI) arrive as `confirm` events and retire the buttons.
// A hold over the policy's passkey_over is approved on its page with a passkey: its Approve
// opens `approve_url` in a tab (the outcome then arrives as a `confirm` event); Deny stays here.
import type { ConfirmationView, PresenceClient } from '@presence/client';
import { PresenceApiError, readableAmounts, readableSummary } from '@presence/client';
import { useEffect, useState } from 'react';
import { describeError } from '../lib/describe-error';
import { formatAmount, formatCountdown } from '../lib/format';
import { sendRuntimeMessage } from '../lib/runtime-messages';
import { useNow, usePresenceEvents, useResource } from './hooks';
import { Empty, ErrorNote, Loading } from './states';

type Outcome =
  | { status: 'executed'; tx: string | null; block: number | null }
  | { status: 'denied' | 'expired' }
  | { status: 'failed'; reason: string | null }
  | { status: 'elsewhere' };

export function PendingTab({ client, onCount }: { client: PresenceClient; onCount?: (n: number) => void }) {
  const { state, reload } = useResource((signal) => client.confirm.list({ status: 'held' }, { signal }));
  const [shown, setShown] = useState<ConfirmationView[]>([]);
  const [outcomes, setOutcomes] = useState<Record<string, Outcome>>({});
  const [busy, setBusy] = useState<Record<string, 'approve' | 'deny'>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});

  // Merge each fresh list with the answered items already on screen, oldest first.
  useEffect(() => {
    if (state.status !== 'ready') return;
    const held = state.data.confirmations;
    setShown((prev) => {
      const ids = new Set(held.map((c) => c.confirm_id));
      const kept = prev.filter((c) => !ids.has(c.confirm_id) && outcomes[c.confirm_id]);
      return [...held, ...kept].sort((a, b) => a.created_at.localeCompare(b.created_at));
    });
  }, [state, outcomes]);

  const waiting = shown.filter((c) => !outcomes[c.confirm_id]);
  const now = useNow(1000, waiting.length > 0);
  const open = waiting.filter((c) => Date.parse(c.expires_at) > now).length;
  useEffect(() => {
    onCount?.(open);
  }, [open, onCount]);

  usePresenceEvents((event) => {
    if (event.type === 'needs_confirm') void reload();
    if (event.type === 'confirm') {
      const d = event.data;
      setOutcomes((prev) => {
        if (prev[d.confirm_id]) return prev;
        const o: Outcome =
          d.status === 'executed'
            ? { status: 'executed', tx: d.tx ?? null, block: d.block ?? null }
            : d.status === 'failed'
              ? { status: 'failed', reason: d.reason ?? null }
              : { status: d.status };
        return { ...prev, [d.confirm_id]: o };
      });
    }
  });

  async function answer(c: ConfirmationView, approve: boolean) {
    const id = c.confirm_id;
    if (approve && c.approve_url) {
      void chrome.tabs.create({ url: c.approve_url });
      return;
    }
    setBusy((b) => ({ ...b, [id]: approve ? 'approve' : 'deny' }));
    setErrors(({ [id]: _, ...rest }) => rest);
    try {
      const r = await client.confirm.answer(id, { approve });
      setOutcomes((o) => ({
        ...o,
        [id]: r.status === 'executed' ? { status: 'executed', tx: r.tx, block: r.block } : { status: 'denied' },
      }));
    } catch (e) {
      if (e instanceof PresenceApiError && e.type === 'confirm_expired') setOutcomes((o) => ({ ...o, [id]: { status: 'expired' } }));
      else if (e instanceof PresenceApiError && e.type === 'confirm_resolved')
        setOutcomes((o) => ({ ...o, [id]: { status: 'elsewhere' } }));
      else setErrors((er) => ({ ...er, [id]: describeError(e) }));
    } finally {
      setBusy(({ [id]: _, ...rest }) => rest);
      sendRuntimeMessage({ type: 'presence:refresh' });
    }
  }

  if (state.status === 'loading') return <Loading label="Looking for held actions…" />;
  if (state.status === 'error') return <ErrorNote error={state.error} onRetry={() => void reload()} />;
  if (shown.length === 0)
    return <Empty title="Nothing waiting">Actions over your approval limit appear here, with Approve and Deny.</Empty>;

  return (
    <ul className="pending" aria-label="Held actions">
      {shown.map((c) => (
        <PendingItem
          key={c.confirm_id}
          c={c}
          outcome={outcomes[c.confirm_id]}
          now={now}
          doing={busy[c.confirm_id]}
          error={errors[c.confirm_id]}
          answer={(approve) => void answer(c, approve)}
        />
      ))}
    </ul>
  );
}

/** One held action: its summary, amount and countdown, then Approve / Deny or how it ended. */
function PendingItem({
  c,
  outcome,
  now,
  doing,
  error,
  answer,
}: {
  c: ConfirmationView;
  outcome: Outcome | undefined;
  now: number;
  doing: 'approve' | 'deny' | undefined;
  error: string | undefined;
  answer: (approve: boolean) => void;
}) {
  const left = Date.parse(c.expires_at) - now;
  const expired = !outcome && left <= 0;
  const titleId = `pending-${c.confirm_id}`;
  return (
    <li className="card pending-item" data-testid="pending-item" aria-labelledby={titleId}>
      <p id={titleId} className="summary">
        {readableSummary(c.summary)}
      </p>
      <p className="pending-meta">
        <span>
          <span className="amount">{readableAmounts(c.amount)}</span>
          {c.value_usd ? <span className="muted"> ≈ {formatAmount(c.value_usd)}</span> : null}
        </span>
        {outcome ? null : expired ? (
          <span className="muted">expired</span>
        ) : (
          <span role="timer" className="countdown" aria-label={`${formatCountdown(left)} left to answer`}>
            {formatCountdown(left)} left
          </span>
        )}
      </p>
      {outcome ? (
        <OutcomeLine outcome={outcome} />
      ) : (
        <Answers c={c} disabled={expired || doing !== undefined} doing={doing} answer={answer} titleId={titleId} />
      )}
      {c.approve_url && !outcome ? (
        <p className="muted" data-testid="passkey-note">
          Over your passkey threshold: Approve opens a page where your device confirms it with a passkey.
        </p>
      ) : null}
      {error ? (
        <p className="bubble-error" role="alert">
          {error}
        </p>
      ) : null}
    </li>
  );
}

/** Approve (on its passkey page when the hold needs one) and Deny. */
function Answers({
  c,
  disabled,
  doing,
  answer,
  titleId,
}: {
  c: ConfirmationView;
  disabled: boolean;
  doing: 'approve' | 'deny' | undefined;
  answer: (approve: boolean) => void;
  titleId: string;
}) {
  return (
    <div className="actions">
      <button type="button" data-testid="approve" disabled={disabled} onClick={() => answer(true)} aria-describedby={titleId}>
        {doing === 'approve' ? 'Approving…' : c.approve_url ? 'Approve with passkey' : 'Approve'}
      </button>
      <button
        type="button"
        className="secondary"
        data-testid="deny"
        disabled={disabled}
        onClick={() => answer(false)}
        aria-describedby={titleId}
      >
        {doing === 'deny' ? 'Denying…' : 'Deny'}
      </button>
    </div>
  );
}

function OutcomeLine({ outcome }: { outcome: Outcome }) {
  const text = (() => {
    switch (outcome.status) {
      case 'executed':
        return null;
      case 'denied':
        return 'Denied: nothing was sent.';
      case 'expired':
        return 'Expired before it was answered: nothing was sent.';
      case 'failed':
        return `Approved, but it failed${outcome.reason ? `: ${outcome.reason}` : '.'}`;
      case 'elsewhere':
        return 'Already answered elsewhere.';
    }
  })();
  return (
    <p className={`outcome outcome-${outcome.status}`} role="status" data-testid="pending-outcome">
      {outcome.status === 'executed' ? (
        <>
          Approved and sent{outcome.block ? ` in block ${outcome.block}` : ''}.{' '}
          {outcome.tx ? (
            <span className="tx">
              tx{' '}
              <code title={outcome.tx} data-testid="pending-tx">
                {outcome.tx}
              </code>
            </span>
          ) : null}
        </>
      ) : (
        text
      )}
    </p>
  );
}
