// Chat: the thread from GET /v1/messages, and each new turn streamed token by token.
// "Allow actions" is off whenever the popup opens: acting needs a deliberate switch.
import type { PresenceClient } from '@presence/client';
import { type FormEvent, type RefObject, useEffect, useId, useRef, useState } from 'react';
import { describeError } from '../lib/describe-error';
import { shortHex } from '../lib/format';
import { usePresenceEvents, useResource } from './hooks';
import { Switch } from './Switch';
import { Empty, ErrorNote, Loading } from './states';

type Bubble = {
  id: string;
  role: 'user' | 'presence';
  text: string;
  tools: string[];
  confirmId?: string | null;
  tx?: string | null;
  unprompted?: boolean;
  state: 'done' | 'streaming' | 'error';
  error?: string;
};

const HISTORY_LIMIT = 30;

export function ChatTab({ client, onShowPending }: { client: PresenceClient; onShowPending: () => void }) {
  const history = useResource((signal) => client.messages.history({ limit: HISTORY_LIMIT }, { signal }));
  const [local, setLocal] = useState<Bubble[]>([]);
  const [text, setText] = useState('');
  const [allowAct, setAllowAct] = useState(false);
  const [sending, setSending] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const list = useRef<HTMLOListElement>(null);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => () => abort.current?.abort(), []);

  const fromHistory: Bubble[] =
    history.state.status === 'ready'
      ? history.state.data.messages.map((m) => ({
          id: m.id,
          role: m.role,
          text: m.text,
          tools: (m.used ?? []).map((u) => u.tool),
          confirmId: m.confirm_id ?? null,
          tx: m.tx ?? null,
          unprompted: m.role === 'presence' && Boolean(m.cause),
          state: 'done' as const,
        }))
      : [];
  const bubbles = [...fromHistory, ...local.filter((b) => !fromHistory.some((h) => h.id === b.id))];

  // Keep the newest message in view.
  const count = bubbles.length;
  const lastText = bubbles.at(-1)?.text;
  useEffect(() => {
    const el = list.current;
    if (el && (count > 0 || lastText !== undefined)) el.scrollTop = el.scrollHeight;
  }, [count, lastText]);

  // The presence speaking unprompted (a standing intent fired, a held action resolved).
  usePresenceEvents((event) => {
    if (event.type !== 'message') return;
    const id = `event-${event.id}`;
    setLocal((prev) =>
      prev.some((b) => b.id === id)
        ? prev
        : [...prev, { id, role: 'presence', text: event.data.text, tools: [], unprompted: true, state: 'done' }],
    );
  });

  const update = (id: string, patch: (b: Bubble) => Partial<Bubble>) =>
    setLocal((prev) => prev.map((b) => (b.id === id ? { ...b, ...patch(b) } : b)));

  async function send(e: FormEvent) {
    e.preventDefault();
    const message = text.trim();
    if (!message || sending) return;
    const turn = crypto.randomUUID();
    const userId = `local-${turn}-u`;
    const replyId = `local-${turn}-p`;
    setLocal((prev) => [
      ...prev,
      { id: userId, role: 'user', text: message, tools: [], state: 'done' },
      { id: replyId, role: 'presence', text: '', tools: [], state: 'streaming' },
    ]);
    setText('');
    setSending(true);
    const controller = new AbortController();
    abort.current = controller;
    try {
      const stream = client.messages.send({ text: message, stream: true, allow_act: allowAct }, { signal: controller.signal });
      for await (const ev of stream) {
        if (ev.type === 'token') update(replyId, (b) => ({ text: b.text + ev.text }));
        else if (ev.type === 'tool') update(replyId, (b) => ({ tools: [...b.tools, ev.name] }));
        else if (ev.type === 'needs_confirm') update(replyId, () => ({ confirmId: ev.confirm_id }));
        else if (ev.type === 'done')
          update(replyId, (b) => ({
            text: ev.result.reply,
            tools: b.tools.length ? b.tools : ev.result.used.map((u) => u.tool),
            confirmId: ev.result.confirm_id ?? b.confirmId ?? null,
            tx: ev.result.tx ?? null,
            state: 'done',
          }));
      }
    } catch (err) {
      if (controller.signal.aborted) return;
      update(replyId, () => ({ state: 'error', error: describeError(err) }));
    } finally {
      if (abort.current === controller) abort.current = null;
      setSending(false);
      input.current?.focus();
    }
  }

  return (
    <div className="chat">
      {history.state.status === 'loading' ? <Loading label="Loading the conversation…" /> : null}
      {history.state.status === 'error' ? <ErrorNote error={history.state.error} onRetry={() => void history.reload()} /> : null}
      {history.state.status === 'ready' && bubbles.length === 0 ? (
        <Empty title="No messages yet">Try “what do I hold”, “how deep is WETH-USDC” or “is SCAM safe”.</Empty>
      ) : null}
      {bubbles.length > 0 ? (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus so the keyboard can scroll it
        <ol className="thread" ref={list} role="log" aria-label="Conversation" tabIndex={0}>
          {bubbles.map((b) => (
            <li key={b.id} className={`bubble ${b.role}${b.state === 'error' ? ' failed' : ''}`} aria-busy={b.state === 'streaming'}>
              <span className="visually-hidden">{b.role === 'user' ? 'You: ' : 'Presence: '}</span>
              {b.tools.length > 0 ? (
                <span className="tools" data-testid="chat-tools">
                  <span className="visually-hidden">Used </span>
                  {b.tools.map((t, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: the same tool can appear twice in a turn
                    <span key={`${t}-${i}`} className="chip">
                      {t}
                    </span>
                  ))}
                </span>
              ) : null}
              {b.role === 'presence' ? (
                <p className="text" data-testid="chat-reply">
                  {b.text || (b.state === 'streaming' ? <span className="typing">thinking…</span> : null)}
                </p>
              ) : (
                <p className="text">{b.text}</p>
              )}
              {b.unprompted ? <span className="muted small">unprompted</span> : null}
              {b.error ? <p className="bubble-error">{b.error}</p> : null}
              {b.tx ? (
                <p className="muted small" title={b.tx}>
                  tx {shortHex(b.tx)}
                </p>
              ) : null}
              {b.confirmId && b.state !== 'streaming' && !b.unprompted ? (
                <button type="button" className="link" onClick={onShowPending}>
                  Held for your approval: review in Pending
                </button>
              ) : null}
            </li>
          ))}
        </ol>
      ) : null}
      <Composer
        text={text}
        setText={setText}
        sending={sending}
        allowAct={allowAct}
        setAllowAct={setAllowAct}
        input={input}
        onSubmit={send}
      />
    </div>
  );
}

/** The message box, Send, and the "Allow actions" switch with what it means. */
function Composer(p: {
  text: string;
  setText: (text: string) => void;
  sending: boolean;
  allowAct: boolean;
  setAllowAct: (on: boolean) => void;
  input: RefObject<HTMLInputElement>;
  onSubmit: (e: FormEvent) => void;
}) {
  const { text, setText, sending, allowAct, setAllowAct, input } = p;
  const hintId = useId();
  return (
    <form className="composer" onSubmit={p.onSubmit}>
      <div className="composer-row">
        <label htmlFor="chat-input" className="visually-hidden">
          Message to your presence
        </label>
        <input
          id="chat-input"
          ref={input}
          data-testid="chat-input"
          type="text"
          value={text}
          maxLength={4000}
          autoComplete="off"
          placeholder="Message your presence…"
          onChange={(e) => setText(e.target.value)}
        />
        <button type="submit" data-testid="chat-send" disabled={sending || text.trim() === ''}>
          {sending ? 'Sending…' : 'Send'}
        </button>
      </div>
      <Switch testId="chat-allow-act" checked={allowAct} describedBy={hintId} onChange={setAllowAct}>
        Allow actions
      </Switch>
      <span id={hintId} className="muted small">
        {allowAct ? 'The presence may act on the wallet, within your spend policy.' : 'Off: the presence only answers, it does not act.'}
      </span>
    </form>
  );
}
