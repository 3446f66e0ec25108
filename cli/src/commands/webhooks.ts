// `presence webhooks create|list|get|update|delete|rotate|test|deliveries|replay` (admin):
// endpoints that get the account's events as signed requests. Secrets are printed once, on
// create and rotate; the list never has them. `presence listen` forwards events to a local URL
// for development (listen.ts).
import type { WebhookView } from '@presence/client';
import type { Command } from 'commander';
import { apiCommand } from '../api-command';
import { CliError } from '../cli-error';
import type { CliContext } from '../context';
import { exitCodes } from '../exit-codes';
import { listCommand } from '../list-command';
import { commaList, wholeNumber } from '../option-values';
import { shortTime } from '../table';

type Types = WebhookView['events'];

/** An endpoint's state and, once disabled, why: `enabled`, `disabled (failing)`. */
const stateOf = (w: WebhookView) => (w.disabled_reason ? `${w.state} (${w.disabled_reason})` : w.state);

const viewPairs = (w: WebhookView): [string, string][] => [
  ['id', w.id],
  ['url', w.url],
  ['events', w.events.length === 0 ? 'all the key may read' : w.events.join(', ')],
  ['state', stateOf(w)],
  ['mode', w.mode],
  ['cursor', String(w.cursor)],
];
const SHOWN_ONCE = 'The secret is shown once: store it now.';
const webhookId = ['<id>', 'webhook id, wh_…'] as const;
const describeOption = ['--description <text>', 'a note for people'] as const;

export function registerWebhooks(hooks: Command, cli: CliContext) {
  endpointCommands(hooks, cli);
  deliveryCommands(hooks, cli);
}

/** The endpoints themselves: list, create, update, delete. */
function endpointCommands(hooks: Command, cli: CliContext) {
  listCommand(hooks, cli, {
    description: 'every endpoint of the account (never secrets)',
    bare: true,
    call: (c) => c.webhooks.list(),
    records: (r) => r.webhooks,
    columns: ['ID', 'URL', 'EVENTS', 'STATE', 'MODE', 'CURSOR', 'CREATED'],
    row: (w) => [w.id, w.url, w.events.join(',') || '*', stateOf(w), w.mode, String(w.cursor), shortTime(w.created_at)],
    empty: `no webhook endpoints; make one with ${cli.command('webhooks create https://example.com/hook')}`,
  });

  apiCommand(hooks, cli, {
    name: 'create',
    description: 'register an endpoint; its signing secret is shown once',
    args: [['<url>', 'https URL of a public address (http://127.0.0.1… only where the server sets PRESENCE_WEBHOOK_ALLOW_PRIVATE=1)']],
    options: [['--events <types>', 'comma-separated event types (default: every type the key may read)', commaList], describeOption],
    call: (c, [url], opts: { events?: string[]; description?: string }) =>
      c.webhooks.create({ url, events: opts.events as Types | undefined, description: opts.description }),
    show: (w) => `${cli.pairs([...viewPairs(w), ['secret', w.secret]])}\n\n${SHOWN_ONCE}`,
  });

  // Written out: both --enable and --disable is refused before any client is made.
  hooks
    .command('update')
    .description('change an endpoint: url, events, description, or enable/disable it')
    .argument(...webhookId)
    .option('--url <url>', 'a new URL')
    .option('--events <types>', 'comma-separated event types (empty: all)', commaList)
    .option(...describeOption)
    .option('--enable', 'enable it (resumes from its cursor)')
    .option('--disable', 'disable it (nothing is sent until enabled)')
    .action(
      async (
        id: string,
        opts: { url?: string; events?: string[]; description?: string; enable?: boolean; disable?: boolean },
        cmd: Command,
      ) => {
        // A CliError, not Commander's InvalidArgumentError: thrown from an action, Commander has
        // printed nothing, and runCli prints only errors that are not Commander's own.
        if (opts.enable && opts.disable) throw new CliError('usage', 'give --enable or --disable, not both', exitCodes.usage);
        const state = opts.enable ? 'enabled' : opts.disable ? 'disabled' : undefined;
        const w = await cli
          .client()
          .webhooks.update(id, { url: opts.url, events: opts.events as Types | undefined, description: opts.description, state });
        cli.print(cmd, w, () => cli.pairs(viewPairs(w)));
      },
    );

  apiCommand(hooks, cli, {
    name: 'delete',
    description: 'delete an endpoint (nothing more is sent to it)',
    args: [webhookId],
    call: (c, [id]) => c.webhooks.delete(id),
    show: (w) => `deleted ${w.id} (${w.url})`,
  });
}

/** What an endpoint is sent and signed with: its secret, a ping, the deliveries log, a replay. */
function deliveryCommands(hooks: Command, cli: CliContext) {
  apiCommand(hooks, cli, {
    name: 'rotate',
    description: 'a new signing secret; the old one keeps signing beside it for 24 h',
    args: [webhookId],
    call: (c, [id]) => c.webhooks.rotateSecret(id),
    show: (r) =>
      `${cli.pairs([
        ['secret', r.secret],
        ['old secret', `signs too until ${shortTime(r.previous_expires_at)} UTC`],
      ])}\n\n${SHOWN_ONCE}`,
  });

  apiCommand(hooks, cli, {
    name: 'test',
    description: 'send a signed ping now and show how it went',
    args: [webhookId],
    call: async (c, [id]) => {
      const r = await c.webhooks.test(id);
      // The ping's line (or --json) is printed either way; a ping the receiver did not take exits 6.
      if (!r.delivered) cli.failWith(exitCodes.network);
      return r;
    },
    show: (r) => `${r.delivered ? 'delivered' : 'failed'}: ${r.status ?? r.error} in ${r.duration_ms} ms (${r.message_id})`,
  });

  listCommand(hooks, cli, {
    name: 'deliveries',
    description: 'recent delivery attempts, newest first',
    args: [webhookId],
    options: [['--limit <n>', 'at most this many (default 50, max 100)', wholeNumber()]],
    call: (c, [id], opts: { limit?: number }) => c.webhooks.deliveries(id, { limit: opts.limit }),
    records: (r) => r.deliveries,
    columns: ['AT', 'EVENT', 'TYPE', 'TRY', 'OUTCOME', 'STATUS', 'MS', 'NEXT TRY', 'ERROR'],
    row: (d) => [
      shortTime(d.at),
      d.event_id === null ? '-' : `#${d.event_id}`,
      d.type,
      String(d.attempt),
      d.outcome,
      d.status === null ? '-' : String(d.status),
      String(d.duration_ms),
      shortTime(d.next_attempt_at),
      d.error ?? '',
    ],
    empty: 'no deliveries yet',
  });

  apiCommand(hooks, cli, {
    name: 'replay',
    description: 'send the events after an event id again, in order',
    args: [webhookId],
    required: [['--since <event-id>', 'events after this id are sent again', wholeNumber()]],
    call: (c, [id], opts: { since: number }) => c.webhooks.replay(id, opts.since),
    show: (w) => `replaying ${w.id} from after event #${w.cursor}`,
  });
}
