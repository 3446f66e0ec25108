// `presence-server`: operator commands that work on the data directory directly.
//   presence-server accounts create NAME   creates an account and prints its first admin key

import { existsSync } from 'node:fs';
import { createCore, createLowdbStore, isPresenceError, makeTreePrivate, systemClock } from '@presence/core';
import { Command } from 'commander';
import { ConfigError, loadConfig } from './config';
import { lockHolder, takeDataDirLock } from './data-dir-lock';

const program = new Command('presence-server').description('Presence server operator commands');

program
  .command('accounts')
  .description('manage accounts')
  .command('create')
  .argument('<name>', 'account name: lowercase letters, digits, "-" or "_"')
  .description('create an account and print its first admin key (shown once)')
  .action(async (name: string) => {
    const config = loadConfig();
    const dataDir = config.PRESENCE_DATA_DIR;
    const holder = lockHolder(dataDir);
    if (holder !== null) {
      fail(
        `a Presence server (pid ${holder}) is running on ${dataDir}; stop it first (Ctrl-C in its terminal, or kill ${holder}), then run this again`,
        3,
      );
    }
    // Held while we write: a server started meanwhile refuses to start instead of undoing our writes.
    const unlock = takeDataDirLock(dataDir);
    try {
      if (existsSync(dataDir)) makeTreePrivate(dataDir);
      const store = await createLowdbStore({ dataDir });
      const core = createCore({ store, clock: systemClock, rateLimit: config.PRESENCE_RATE_LIMIT });
      try {
        const { account, admin } = await core.accounts.create(name);
        process.stdout.write(`account ${account} (data in ${dataDir})\nadmin key ${admin.secret}\n(shown once; it has every scope)\n`);
      } finally {
        await store.close();
      }
    } finally {
      unlock();
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
