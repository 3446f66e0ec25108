// `presence keys list|create|rotate|revoke` (admin). Secrets are printed once, on create
// and rotate; the list never has them.

import type { KeySecret, KeyView } from '@presence/client';
import { type Command, InvalidArgumentError } from 'commander';
import { apiCommand } from '../api-command';
import type { CliContext } from '../context';
import { listCommand } from '../list-command';
import { commaList, wholeNumber } from '../option-values';
import { shortTime } from '../table';

const parseScopes = (value: string) => {
  const scopes = commaList(value);
  if (scopes.length === 0) throw new InvalidArgumentError('give at least one scope, e.g. talk,memory:read');
  return scopes;
};

const secretPairs = (k: KeySecret): [string, string][] => [
  ['id', k.id],
  ['name', k.name],
  ['kind', k.kind],
  ['scopes', k.scopes.join(', ')],
  ['secret', k.secret],
];
const SHOWN_ONCE = 'The secret is shown once: store it now.';
const keyId = ['<id>', 'key id, key_…'] as const;

export function registerKeys(keys: Command, cli: CliContext) {
  listCommand(keys, cli, {
    description: 'every key of the account (never secrets)',
    bare: true,
    call: (c) => c.keys.list(),
    records: (r) => r.keys,
    columns: ['ID', 'NAME', 'KIND', 'SCOPES', 'LAST4', 'STATE', 'CREATED', 'LAST USED'],
    row: (k) => [
      k.id,
      k.name,
      k.kind,
      k.scopes.join(','),
      k.last4,
      k.grace_until ? `${k.state} (old secret until ${shortTime(k.grace_until)})` : k.state,
      shortTime(k.created_at),
      shortTime(k.last_used_at),
    ],
  });

  apiCommand(keys, cli, {
    name: 'create',
    description: 'create a key; its secret is shown once',
    required: [
      ['--name <name>', 'a label for people'],
      ['--scopes <list>', 'comma-separated: talk, memory:read, memory:write, wallet:read, wallet:act, admin', parseScopes],
    ],
    options: [['--test', 'a test key: reads are real, writes are simulated']],
    call: (c, _args, opts: { name: string; scopes: string[]; test?: boolean }) =>
      c.keys.create({ name: opts.name, scopes: opts.scopes as KeyView['scopes'], kind: opts.test ? 'test' : 'live' }),
    show: (k) => `${cli.pairs(secretPairs(k))}\n\n${SHOWN_ONCE}`,
    noteIfTest: true,
  });

  apiCommand(keys, cli, {
    name: 'rotate',
    description: 'a new secret now; the old one keeps working for a grace window',
    args: [keyId],
    options: [
      ['--grace <seconds>', 'how long the old secret keeps working (default 900, max 86400)', wholeNumber('a whole number of seconds')],
    ],
    call: (c, [id], opts: { grace?: number }) => c.keys.rotate(id, opts.grace !== undefined ? { grace_s: opts.grace } : {}),
    show: (k) => `${cli.pairs([...secretPairs(k), ['old secret', `works until ${shortTime(k.grace_until)} UTC`]])}\n\n${SHOWN_ONCE}`,
  });

  apiCommand(keys, cli, {
    name: 'revoke',
    description: 'revoke a key at once (no grace)',
    args: [keyId],
    call: (c, [id]) => c.keys.revoke(id),
    show: (k) => `revoked ${k.id} (${k.name})`,
  });
}
