// `presence-server accounts create NAME`: an account and its first admin key (shown once),
// written beside running servers on the database, or on a data directory no server holds.

import { createCore, type StoreWiring, systemClock } from '@presence/core';
import { createLowdbStore } from '@presence/core/lowdb';
import type { Command } from 'commander';
import { type Config, loadConfig } from '../config';
import { refuseImported } from '../imported-marker';
import { databaseLabel } from '../open-store';
import { holdDataDir, openOperatorDatabase } from './operator-store';

export function registerAccounts(program: Command) {
  program
    .command('accounts')
    .description('manage accounts')
    .command('create')
    .argument('<name>', 'account name: lowercase letters, digits, "-" or "_"')
    .description('create an account and print its first admin key (shown once)')
    .action(async (name: string) => {
      const config = loadConfig();
      const url = config.PRESENCE_DATABASE_URL;
      if (url) {
        const db = await openOperatorDatabase(url);
        try {
          return await createAccount(db.wiring, config, name, `in the database at ${databaseLabel(url)}`);
        } finally {
          await db.close();
        }
      }
      const dataDir = config.PRESENCE_DATA_DIR;
      refuseImported(dataDir);
      const unlock = holdDataDir(dataDir);
      try {
        const store = await createLowdbStore({ dataDir });
        try {
          await createAccount({ store }, config, name, `data in ${dataDir}`);
        } finally {
          await store.close();
        }
      } finally {
        unlock();
      }
    });
}

async function createAccount(wiring: StoreWiring, config: Config, name: string, where: string) {
  const core = createCore({ ...wiring, clock: systemClock, rateLimit: config.PRESENCE_RATE_LIMIT });
  const { account, admin } = await core.accounts.create(name);
  process.stdout.write(`account ${account} (${where})\nadmin key ${admin.secret}\n(shown once; it has every scope)\n`);
}
