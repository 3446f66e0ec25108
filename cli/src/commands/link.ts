// `presence link`: a one-time code a bot or the extension redeems for its own key, so no
// secret is pasted into a chat.

import type { CreateLinkParameters } from '@presence/client';
import type { Command } from 'commander';
import { apiCommand } from '../api-command';
import type { CliContext } from '../context';
import { commaList, wholeNumber } from '../option-values';
import { shortTime } from '../table';

export function registerLink(program: Command, cli: CliContext) {
  apiCommand(program, cli, {
    name: 'link',
    description: 'make a one-time code to link a bot or the extension (admin)',
    options: [
      ['--scopes <list>', 'comma-separated scopes for the linked key (default: all but admin)', commaList],
      ['--ttl <seconds>', 'how long the code is valid (default 600)', wholeNumber('a whole number of seconds')],
    ],
    call: (c, _args, opts: { scopes?: string[]; ttl?: number }) => {
      const params: CreateLinkParameters = {};
      if (opts.scopes) params.scopes = opts.scopes as NonNullable<CreateLinkParameters['scopes']>;
      if (opts.ttl !== undefined) params.ttl_s = opts.ttl;
      return c.links.create(params);
    },
    show: (r) =>
      `${cli.pairs([
        ['code', r.code],
        ['expires', `${shortTime(r.expires_at)} UTC (used once)`],
        ['scopes', r.scopes.join(', ')],
      ])}\n\nIn the bot: /link ${r.code}    In the extension: paste it on the options page.`,
  });
}
