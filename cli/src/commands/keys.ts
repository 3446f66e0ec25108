// `presence keys list|create|rotate|revoke` (admin). Secrets are printed once, on create
// and rotate; the list never has them.

import type { KeySecret, KeyView } from '@presence/client';
import { type Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../context';
import { shortTime } from '../table';

const parseScopes = (value: string) => {
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (scopes.length === 0) throw new InvalidArgumentError('give at least one scope, e.g. talk,memory:read');
  return scopes;
};

const parseSeconds = (value: string) => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('a whole number of seconds');
  return Number(value);
};

const secretPairs = (k: KeySecret): [string, string][] => [
  ['id', k.id],
  ['name', k.name],
  ['kind', k.kind],
  ['scopes', k.scopes.join(', ')],
  ['secret', k.secret],
];

export function registerKeys(program: Command, cli: CliContext) {
  const keys = program.command('keys').description('list, create, rotate and revoke API keys (admin)');

  keys
    .command('list')
    .description('every key of the account (never secrets)')
    .action(async (_opts: unknown, cmd: Command) => {
      const r = await cli.client().keys.list();
      cli.print(cmd, r, () =>
        cli.table(
          ['ID', 'NAME', 'KIND', 'SCOPES', 'LAST4', 'STATE', 'CREATED', 'LAST USED'].map((header) => ({ header })),
          r.keys.map((k: KeyView) => [
            k.id,
            k.name,
            k.kind,
            k.scopes.join(','),
            k.last4,
            k.grace_until ? `${k.state} (old secret until ${shortTime(k.grace_until)})` : k.state,
            shortTime(k.created_at),
            shortTime(k.last_used_at),
          ]),
        ),
      );
    });

  keys
    .command('create')
    .description('create a key; its secret is shown once')
    .requiredOption('--name <name>', 'a label for people')
    .requiredOption('--scopes <list>', 'comma-separated: talk, memory:read, memory:write, wallet:read, wallet:act, admin', parseScopes)
    .option('--test', 'a test key: reads are real, writes are simulated')
    .action(async (opts: { name: string; scopes: string[]; test?: boolean }, cmd: Command) => {
      const k = await cli.client().keys.create({
        name: opts.name,
        scopes: opts.scopes as KeyView['scopes'],
        kind: opts.test ? 'test' : 'live',
      });
      cli.print(cmd, k, () => `${cli.pairs(secretPairs(k))}\n\nThe secret is shown once: store it now.`);
      cli.noteIfTest();
    });

  keys
    .command('rotate')
    .description('a new secret now; the old one keeps working for a grace window')
    .argument('<id>', 'key id, key_…')
    .option('--grace <seconds>', 'how long the old secret keeps working (default 900, max 86400)', parseSeconds)
    .action(async (id: string, opts: { grace?: number }, cmd: Command) => {
      const k = await cli.client().keys.rotate(id, opts.grace !== undefined ? { grace_s: opts.grace } : {});
      cli.print(
        cmd,
        k,
        () =>
          `${cli.pairs([...secretPairs(k), ['old secret', `works until ${shortTime(k.grace_until)} UTC`]])}\n\nThe secret is shown once: store it now.`,
      );
    });

  keys
    .command('revoke')
    .description('revoke a key at once (no grace)')
    .argument('<id>', 'key id, key_…')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const k = await cli.client().keys.revoke(id);
      cli.print(cmd, k, () => `revoked ${k.id} (${k.name})`);
    });
}
