// `presence-server`: operator commands that work on the data directory directly.
//   presence-server accounts create NAME   creates an account and prints its first admin key

import { existsSync } from 'node:fs';
import { createCore, createLowdbStore, isPresenceError, makeTreePrivate, systemClock } from '@presence/core';
import { Command } from 'commander';
import { ConfigError, loadConfig } from './config';
import { lockHolder } from './data-dir-lock';

const program = new Command('presence-server').description('Presence server operator commands');

program
  .command('accounts')
  .description('manage accounts')
  .command('create')
  .argument('<name>', 'account name: lowercase letters, digits, "-" or "_"')
  .description('create an account and print its first admin key (shown once)')
  .action(async (name: string) => {
    const config = loadConfig();
    const holder = lockHolder(config.PRESENCE_DATA_DIR);
    if (holder !== null) {
      fail(`the server (pid ${holder}) is running on ${config.PRESENCE_DATA_DIR}; stop it first, then run this again`, 3);
    }
    if (existsSync(config.PRESENCE_DATA_DIR)) makeTreePrivate(config.PRESENCE_DATA_DIR);
    const store = await createLowdbStore({ dataDir: config.PRESENCE_DATA_DIR });
    const core = createCore({ store, clock: systemClock, rateLimit: config.PRESENCE_RATE_LIMIT });
    try {
      const { account, admin } = await core.accounts.create(name);
      process.stdout.write(`account ${account}\nadmin key ${admin.secret}\n(shown once; it has every scope)\n`);
    } finally {
      await store.close();
    }
  });

function fail(message: string, code: number): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(code);
}

program.parseAsync().catch((e: unknown) => {
  if (e instanceof ConfigError) fail(e.message, 2);
  if (isPresenceError(e)) fail(`${e.type} — ${e.detail}`, 1);
  fail((e as Error).message, 1);
});
