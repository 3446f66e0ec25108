// `presence webhooks create|list|get|update|delete|rotate|test|deliveries|replay` (admin):
// endpoints that get the account's events as signed requests. Secrets are printed once, on
// create and rotate; the list never has them. `presence listen` forwards events to a local URL
// for development (listen.ts).
import type { WebhookDelivery, WebhookView } from '@presence/client';
import { type Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../context';
import { shortTime } from '../table';

const parseTypes = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const parseCount = (value: string) => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('a whole number');
  return Number(value);
};
type Types = WebhookView['events'];

const viewPairs = (w: WebhookView): [string, string][] => [
  ['id', w.id],
  ['url', w.url],
  ['events', w.events.length === 0 ? 'all the key may read' : w.events.join(', ')],
  ['state', w.disabled_reason ? `${w.state} (${w.disabled_reason})` : w.state],
  ['mode', w.mode],
  ['cursor', String(w.cursor)],
];

export function registerWebhooks(program: Command, cli: CliContext) {
  const hooks = program.command('webhooks').description('endpoints that get the account’s events as signed requests (admin)');

  hooks
    .command('list')
    .description('every endpoint of the account (never secrets)')
    .action(async (_opts: unknown, cmd: Command) => {
      const r = await cli.client().webhooks.list();
      cli.print(cmd, r, () =>
        r.webhooks.length === 0
          ? `no webhook endpoints; make one with ${cli.command('webhooks create https://example.com/hook')}`
          : cli.table(
              ['ID', 'URL', 'EVENTS', 'STATE', 'MODE', 'CURSOR', 'CREATED'].map((header) => ({ header })),
              r.webhooks.map((w) => [
                w.id,
                w.url,
                w.events.join(',') || '*',
                w.disabled_reason ? `${w.state} (${w.disabled_reason})` : w.state,
                w.mode,
                String(w.cursor),
                shortTime(w.created_at),
              ]),
            ),
      );
    });

  hooks
    .command('create')
    .description('register an endpoint; its signing secret is shown once')
    .argument('<url>', 'https URL of a public address (http://127.0.0.1… only where the server sets PRESENCE_WEBHOOK_ALLOW_PRIVATE=1)')
    .option('--events <types>', 'comma-separated event types (default: every type the key may read)', parseTypes)
    .option('--description <text>', 'a note for people')
    .action(async (url: string, opts: { events?: string[]; description?: string }, cmd: Command) => {
      const w = await cli.client().webhooks.create({ url, events: opts.events as Types | undefined, description: opts.description });
      cli.print(cmd, w, () => `${cli.pairs([...viewPairs(w), ['secret', w.secret]])}\n\nThe secret is shown once: store it now.`);
    });

  hooks
    .command('update')
    .description('change an endpoint: url, events, description, or enable/disable it')
    .argument('<id>', 'webhook id, wh_…')
    .option('--url <url>', 'a new URL')
    .option('--events <types>', 'comma-separated event types (empty: all)', parseTypes)
    .option('--description <text>', 'a note for people')
    .option('--enable', 'enable it (resumes from its cursor)')
    .option('--disable', 'disable it (nothing is sent until enabled)')
    .action(
      async (
        id: string,
        opts: { url?: string; events?: string[]; description?: string; enable?: boolean; disable?: boolean },
        cmd: Command,
      ) => {
        if (opts.enable && opts.disable) throw new InvalidArgumentError('give --enable or --disable, not both');
        const state = opts.enable ? 'enabled' : opts.disable ? 'disabled' : undefined;
        const w = await cli
          .client()
          .webhooks.update(id, { url: opts.url, events: opts.events as Types | undefined, description: opts.description, state });
        cli.print(cmd, w, () => cli.pairs(viewPairs(w)));
      },
    );

  hooks
    .command('delete')
    .description('delete an endpoint (nothing more is sent to it)')
    .argument('<id>', 'webhook id, wh_…')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const w = await cli.client().webhooks.delete(id);
      cli.print(cmd, w, () => `deleted ${w.id} (${w.url})`);
    });

  hooks
    .command('rotate')
    .description('a new signing secret; the old one keeps signing beside it for 24 h')
    .argument('<id>', 'webhook id, wh_…')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const r = await cli.client().webhooks.rotateSecret(id);
      cli.print(
        cmd,
        r,
        () =>
          `${cli.pairs([
            ['secret', r.secret],
            ['old secret', `signs too until ${shortTime(r.previous_expires_at)} UTC`],
          ])}\n\nThe secret is shown once: store it now.`,
      );
    });

  hooks
    .command('test')
    .description('send a signed ping now and show how it went')
    .argument('<id>', 'webhook id, wh_…')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const r = await cli.client().webhooks.test(id);
      cli.print(cmd, r, () => `${r.delivered ? 'delivered' : 'failed'}: ${r.status ?? r.error} in ${r.duration_ms} ms (${r.message_id})`);
    });

  hooks
    .command('deliveries')
    .description('recent delivery attempts, newest first')
    .argument('<id>', 'webhook id, wh_…')
    .option('--limit <n>', 'at most this many (default 50, max 100)', parseCount)
    .action(async (id: string, opts: { limit?: number }, cmd: Command) => {
      const r = await cli.client().webhooks.deliveries(id, { limit: opts.limit });
      cli.print(cmd, r, () =>
        r.deliveries.length === 0
          ? 'no deliveries yet'
          : cli.table(
              ['AT', 'EVENT', 'TYPE', 'TRY', 'OUTCOME', 'STATUS', 'MS', 'NEXT TRY', 'ERROR'].map((header) => ({ header })),
              r.deliveries.map((d: WebhookDelivery) => [
                shortTime(d.at),
                d.event_id === null ? '-' : `#${d.event_id}`,
                d.type,
                String(d.attempt),
                d.outcome,
                d.status === null ? '-' : String(d.status),
                String(d.duration_ms),
                shortTime(d.next_attempt_at),
                d.error ?? '',
              ]),
            ),
      );
    });

  hooks
    .command('replay')
    .description('send the events after an event id again, in order')
    .argument('<id>', 'webhook id, wh_…')
    .requiredOption('--since <event-id>', 'events after this id are sent again', parseCount)
    .action(async (id: string, opts: { since: number }, cmd: Command) => {
      const w = await cli.client().webhooks.replay(id, opts.since);
      cli.print(cmd, w, () => `replaying ${w.id} from after event #${w.cursor}`);
    });
}
