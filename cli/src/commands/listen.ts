// `presence listen --forward-to URL`, as `stripe listen`: develop a webhook receiver without a
// public address. It reads the account's live events stream and forwards each event to the
// local URL as Presence's webhooks send it (same body, Standard Webhooks headers), signed with
// a secret made for this session and printed first; each delivery's outcome is one line.
// Events go one at a time, in order; a receiver that fails is reported, not retried (the stream
// goes on). Ctrl-C stops it cleanly.
import { type EventsItem, eventTypes, signWebhook } from '@presence/client';
import { type Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../context';
import { commaList } from '../option-values';

const FORWARD_TIMEOUT_MS = 10_000;

const parseUrl = (value: string) => {
  try {
    const u = new URL(value);
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.toString();
  } catch {}
  throw new InvalidArgumentError('expected an http(s) URL, e.g. http://localhost:3000/hook');
};

/** The filter is applied here, not by the server: a type no event has would forward nothing, silently. */
const parseTypes = (value: string) => {
  const types = commaList(value);
  const unknown = types.filter((t) => !(eventTypes as readonly string[]).includes(t));
  if (unknown.length > 0) throw new InvalidArgumentError(`unknown event type ${unknown.join(', ')}: use ${eventTypes.join(', ')}`);
  return types;
};

function sessionSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

export function registerListen(program: Command, cli: CliContext) {
  program
    .command('listen')
    .description('forward live events to a local URL as signed webhook requests (for developing a receiver)')
    .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://localhost:3000/hook', parseUrl)
    .option('--events <types>', 'comma-separated event types to forward (default: all)', parseTypes)
    .action(async (opts: { forwardTo: string; events?: string[] }, cmd: Command) => {
      const json = cli.json(cmd);
      const secret = sessionSecret();
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        const client = cli.client();
        if (json) cli.io.stdout(`${JSON.stringify({ secret, forward_to: opts.forwardTo })}\n`);
        else cli.io.stdout(`Ready. Signing secret for this session: ${secret}\nForwarding events to ${opts.forwardTo} (Ctrl-C to stop)\n`);
        let connected = false;
        const events = client.events.subscribe({
          signal: stop.signal,
          // On stderr, so stdout stays data: from this line on, live events are forwarded.
          onOpen: () => {
            cli.io.stderr(connected ? `reconnected to ${client.baseUrl}\n` : `connected to ${client.baseUrl}\n`);
            connected = true;
          },
          onReconnect: ({ delayMs, error }) =>
            cli.io.stderr(`reconnecting in ${(delayMs / 1000).toFixed(1)} s (${error.message.split('\n')[0]})\n`),
        });
        for await (const e of events as AsyncIterable<EventsItem>) {
          if (e.type === 'gap' || e.type === 'unrecognized' || e.id === undefined) continue;
          if (opts.events && !opts.events.includes(e.type)) continue;
          const body = JSON.stringify({ id: e.id, type: e.type, created_at: e.data.at, data: e.data });
          const messageId = `evt_listen_${e.id}`;
          const timestamp = Math.floor(Date.now() / 1000);
          const started = performance.now();
          let status: number | null = null;
          let error: string | null = null;
          try {
            const res = await fetch(opts.forwardTo, {
              method: 'POST',
              redirect: 'manual',
              signal: AbortSignal.any([stop.signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
              headers: {
                'content-type': 'application/json',
                'webhook-id': messageId,
                'webhook-timestamp': String(timestamp),
                'webhook-signature': await signWebhook(secret, messageId, timestamp, body),
              },
              body,
            });
            status = res.status;
            await res.body?.cancel();
          } catch (x) {
            if (stop.signal.aborted) break;
            error = x instanceof Error ? (x.cause instanceof Error ? x.cause.message : x.message) : String(x);
          }
          const ms = Math.round(performance.now() - started);
          if (json)
            cli.io.stdout(`${JSON.stringify({ event_id: e.id, type: e.type, message_id: messageId, status, error, duration_ms: ms })}\n`);
          else cli.io.stdout(`#${String(e.id).padEnd(6)} ${e.type.padEnd(16)} → ${status ?? `failed (${error})`} in ${ms} ms\n`);
        }
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}
