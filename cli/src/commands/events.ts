// `presence events`: tails the events stream until Ctrl-C (or --limit events). Drops are
// resumed with Last-Event-ID by the SDK; the connection and reconnects are reported on
// stderr. With --json, one JSON object per line (NDJSON) so it pipes into jq.

import { type EventsItem, PresenceNetworkError } from '@presence/client';
import type { Command } from 'commander';
import type { CliContext } from '../context';
import { wholeNumber } from '../option-values';

function describe(e: EventsItem): string {
  if (e.type === 'gap') return `events before #${e.data.oldest_id} are no longer kept; some were missed`;
  if (e.type === 'unrecognized') return `${e.event}: ${e.reason}`;
  return Object.entries(e.data)
    .filter(([k]) => k !== 'at')
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
}

/**
 * Failed attempts, with no connection yet, before `events` gives up (about 4–8 s of backoff):
 * a wrong address or a server that is not running should end with the network exit code, not
 * hang a script. Once connected it reconnects for as long as it runs, as a tail should.
 */
export const EVENTS_CONNECT_ATTEMPTS = 5;

export function registerEvents(program: Command, cli: CliContext) {
  program
    .command('events')
    .description('tail the events stream (resumes after a drop)')
    .option('--since <id>', 'replay events after this id first (0: everything kept)', wholeNumber())
    .option('--limit <n>', 'exit after this many events', wholeNumber())
    .action(async (opts: { since?: number; limit?: number }, cmd: Command) => {
      const json = cli.json(cmd);
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      let connected = false;
      let gaveUp: Error | undefined;
      try {
        const client = cli.client();
        const events = client.events.subscribe({
          signal: stop.signal,
          lastEventId: opts.since,
          // On stderr, so stdout stays data. Until this line, nothing emitted yet is certain to arrive.
          onOpen: () => {
            cli.io.stderr(
              connected ? `reconnected to ${client.baseUrl}\n` : `connected to ${client.baseUrl}, waiting for events (Ctrl-C to stop)\n`,
            );
            connected = true;
          },
          onReconnect: ({ attempt, delayMs, error }) => {
            if (!connected && attempt >= EVENTS_CONNECT_ATTEMPTS) {
              gaveUp = error;
              stop.abort();
              return;
            }
            cli.io.stderr(`reconnecting in ${(delayMs / 1000).toFixed(1)} s (${error.message.split('\n')[0]})\n`);
          },
        });
        let n = 0;
        if (opts.limit === 0) return;
        for await (const e of events) {
          if (json) cli.io.stdout(`${JSON.stringify(e)}\n`);
          else {
            const id = e.type === 'gap' || e.id === undefined ? '-' : `#${e.id}`;
            const at = e.type === 'gap' || e.type === 'unrecognized' ? '' : e.data.at.replace(/\.\d+Z$/, 'Z');
            cli.io.stdout(`${id.padEnd(7)} ${at.padEnd(20)} ${e.type.padEnd(13)} ${describe(e)}\n`);
          }
          if (opts.limit !== undefined && ++n >= opts.limit) break;
        }
        if (gaveUp instanceof PresenceNetworkError) {
          throw new PresenceNetworkError(gaveUp.code, `${gaveUp.message}; gave up after ${EVENTS_CONNECT_ATTEMPTS} attempts`, {
            cause: gaveUp,
          });
        }
        if (gaveUp) throw gaveUp;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}
