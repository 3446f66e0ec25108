// `presence-server rotate-master-key`: from the key in use (PRESENCE_MASTER_KEY, or the data
// directory's generated master.key) to PRESENCE_NEW_MASTER_KEY, on the store the
// configuration names. Every server on the store must be stopped, or it would go on sealing
// and opening under the old key (a 500 "unable to authenticate data" while /v1/ready says 200):
// the data directory's lock enforces it for the embedded store; on a database the command
// refuses while any server's session is there, naming the servers. A generated
// master.key is replaced last, once every record is under the new key (a crash before that
// is finished by running the command again).
import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  createKeystore,
  loadOrCreateMasterKey,
  MasterKeyMismatch,
  type ResealCounts,
  rotateMasterKey,
  writeMasterKeyFile,
} from '@presence/core';
import { resealLowdb } from '@presence/core/lowdb';
import { connectedServers, resealPostgres } from '@presence/core/postgres';
import { type Config, ConfigError } from './config';
import { lockHolder, takeDataDirLock } from './data-dir-lock';
import { masterKeyCheckFor, masterKeyName } from './master-key';
import { databaseFailure, databaseLabel } from './open-store';
import { StartRefused } from './start-refused';

const HEX_KEY = /^[0-9a-fA-F]{64}$/;

/** Runs the rotation; answers the line to print. Throws ConfigError (exit 2) for a wrong or missing key. */
export async function rotateMasterKeyCommand(config: Config, env: NodeJS.ProcessEnv): Promise<string> {
  const next = env.PRESENCE_NEW_MASTER_KEY;
  if (!next || !HEX_KEY.test(next))
    throw new ConfigError(
      'invalid PRESENCE_NEW_MASTER_KEY (value not shown: it is a secret): 64 hex characters (32 bytes), e.g. from `openssl rand -hex 32`',
    );
  const url = config.PRESENCE_DATABASE_URL;
  const keyFile = path.join(config.PRESENCE_DATA_DIR, 'master.key');
  const fromFile = !config.PRESENCE_MASTER_KEY;
  if (fromFile && !existsSync(keyFile))
    throw new ConfigError(`invalid PRESENCE_MASTER_KEY: unset, and there is no ${keyFile}: nothing is sealed yet`);
  const current = config.PRESENCE_MASTER_KEY ?? loadOrCreateMasterKey({ dataDir: config.PRESENCE_DATA_DIR }).toString('hex');
  const from = createKeystore(Buffer.from(current, 'hex'));
  const to = createKeystore(Buffer.from(next, 'hex'));

  if (url) await refuseConnectedServers(url);
  const unlock = url ? () => undefined : lockDataDir(config.PRESENCE_DATA_DIR);
  const check = masterKeyCheckFor(config);
  let counts: ResealCounts | null;
  try {
    ({ counts } = await rotateMasterKey({
      check,
      from,
      to,
      resealAll: (reseal) => (url ? resealPostgres(url, reseal) : resealLowdb(config.PRESENCE_DATA_DIR, reseal)),
    }));
    // Last: the file names the new key only once every record is under it.
    if (fromFile && current.toLowerCase() !== next.toLowerCase()) await writeMasterKeyFile(keyFile, next.toLowerCase());
  } catch (e) {
    if (e instanceof MasterKeyMismatch) throw new ConfigError(`invalid ${masterKeyName(config)}: ${e.message}`);
    throw url && !(e instanceof ConfigError) ? databaseFailure(url, e) : e;
  } finally {
    await check.close?.();
    unlock();
  }
  const where = url ? `the database at ${databaseLabel(url)}` : config.PRESENCE_DATA_DIR;
  const then = fromFile ? `${keyFile} now holds the new key` : 'start every server with PRESENCE_MASTER_KEY set to the new key';
  if (!counts) return `${where} is already sealed under the new key; ${then}`;
  return `re-sealed ${counts.wallets} wallet key(s) and ${counts.answers} stored answer(s) in ${where}; ${then} (link codes made before now no longer redeem)`;
}

async function refuseConnectedServers(url: string) {
  const servers = await connectedServers(url).catch((e: unknown) => {
    throw databaseFailure(url, e);
  });
  if (servers.length > 0)
    throw new StartRefused(
      `${servers.length} Presence server(s) are connected to the database at ${databaseLabel(url)} (${servers.join(', ')}); stop every one, then run this again`,
    );
}

function lockDataDir(dataDir: string) {
  const holder = lockHolder(dataDir);
  if (holder !== null)
    throw new StartRefused(`a Presence server (pid ${holder}) is running on ${dataDir}; stop it first, then run this again`);
  return takeDataDirLock(dataDir);
}
