// `presence link`: a one-time code a bot or the extension redeems for its own key, so no
// secret is pasted into a chat.

import type { CreateLinkParameters } from '@presence/client';
import { type Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../context';
import { shortTime } from '../table';

export function registerLink(program: Command, cli: CliContext) {
  program
    .command('link')
    .description('make a one-time code to link a bot or the extension (admin)')
    .option('--scopes <list>', 'comma-separated scopes for the linked key (default: all but admin)', (v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .option('--ttl <seconds>', 'how long the code is valid (default 600)', (v) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('a whole number of seconds');
      return Number(v);
    })
    .action(async (opts: { scopes?: string[]; ttl?: number }, cmd: Command) => {
      const params: CreateLinkParameters = {};
      if (opts.scopes) params.scopes = opts.scopes as NonNullable<CreateLinkParameters['scopes']>;
      if (opts.ttl !== undefined) params.ttl_s = opts.ttl;
      const r = await cli.client().links.create(params);
      cli.print(
        cmd,
        r,
        () =>
          `${cli.pairs([
            ['code', r.code],
            ['expires', `${shortTime(r.expires_at)} UTC (used once)`],
            ['scopes', r.scopes.join(', ')],
          ])}\n\nIn the bot: /link ${r.code}    In the extension: paste it on the options page.`,
      );
    });
}
