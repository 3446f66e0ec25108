// `presence-server import-lowdb DATA_DIR`: copies an embedded install into an empty database
// (core's importLowdb does the copy); the install is left as it was and marked imported.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createKeystore, isPresenceError, MasterKeyMismatch } from '@presence/core';
import { importLowdb } from '@presence/core/postgres';
import type { Command } from 'commander';
import { ConfigError, invocationDir, loadConfig } from '../config';
import { lockHolder, takeDataDirLock } from '../data-dir-lock';
import { markImported } from '../imported-marker';
import { databaseFailure, databaseLabel } from '../open-store';
import { fail } from './fail';

export function registerImportLowdb(program: Command) {
  program
    .command('import-lowdb')
    .argument('<data_dir>', 'the embedded install to copy (its PRESENCE_DATA_DIR)')
    .description(
      'copy an embedded install into the empty database at PRESENCE_DATABASE_URL (its records are left as they were; it is marked imported)',
    )
    .action(async (dir: string) => {
      const config = loadConfig();
      const url = config.PRESENCE_DATABASE_URL;
      if (!url) throw new ConfigError('PRESENCE_DATABASE_URL is not set: import-lowdb copies into a PostgreSQL database');
      const dataDir = path.resolve(invocationDir(process.env), dir);
      if (!existsSync(path.join(dataDir, 'data'))) fail(`${dataDir} holds no Presence data (no data/ directory)`, 1);
      const masterKey = config.PRESENCE_MASTER_KEY as string; // loadConfig requires it with a database
      refuseOtherMasterKey(dataDir, masterKey);
      const holder = lockHolder(dataDir);
      if (holder !== null) fail(`a Presence server (pid ${holder}) is running on ${dataDir}; stop it first, then run this again`, 3);
      const unlock = takeDataDirLock(dataDir);
      try {
        const counts = await importLowdb({ dataDir, url, keystore: createKeystore(Buffer.from(masterKey, 'hex')) }).catch((e: unknown) => {
          if (e instanceof MasterKeyMismatch)
            fail(
              `PRESENCE_MASTER_KEY is not ${dataDir}'s key (${e.message}): set it to the key that install ran with, here and for every server on the database; nothing was copied`,
              2,
            );
          throw isPresenceError(e) || (e instanceof Error && typeof (e as { code?: unknown }).code === 'string')
            ? databaseFailure(url, e)
            : e;
        });
        markImported(dataDir, databaseLabel(url));
        process.stdout.write(importedReport(dataDir, databaseLabel(url), counts));
        if (existsSync(path.join(dataDir, 'devnet'))) process.stdout.write(`${DEVNET_NOTE(dataDir)}\n`);
      } finally {
        unlock();
      }
    });
}

/** The install's wallets and answers are sealed under its master key: the database's servers need the same one. */
function refuseOtherMasterKey(dataDir: string, masterKey: string) {
  const keyFile = path.join(dataDir, 'master.key');
  if (existsSync(keyFile) && readFileSync(keyFile, 'utf8').trim().toLowerCase() !== masterKey.toLowerCase()) {
    fail(
      `PRESENCE_MASTER_KEY is not the key that sealed ${dataDir}'s wallets: set it to the contents of ${keyFile}, here and for every server on the database`,
      2,
    );
  }
}

const importedReport = (dataDir: string, where: string, counts: Record<string, number>) =>
  `copied ${dataDir} into ${where}:\n${Object.entries(counts)
    .map(([family, n], _, all) => `  ${family.padEnd(Math.max(...all.map(([f]) => f.length)))} ${n}\n`)
    .join(
      '',
    )}start servers with this PRESENCE_DATABASE_URL and PRESENCE_MASTER_KEY; ${dataDir}'s records are left as they were, and it is marked imported (a start on it without PRESENCE_DATABASE_URL is refused)\n`;

/** Said at import when the install ran the embedded devnet: balances live on a chain, and records are what moved. */
const DEVNET_NOTE = (dataDir: string) =>
  `devnet balances: this install's chain (its balances and market) stays in ${path.join(dataDir, 'devnet')}; a server that keeps PRESENCE_DATA_DIR=${dataDir} and the embedded devnet goes on with it, but on a shared devnet (PRESENCE_RPC_URL) the chain is new and these wallets' devnet balances start over. A real network is unaffected: its balances are on the network, reached with the same keys.`;
