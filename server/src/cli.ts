// `presence-server`: run the server, and operator commands that work on the store directly.
//   presence-server serve                  runs the server (what `npm start` does), from the built dist/ with plain Node
//   presence-server accounts create NAME   creates an account and prints its first admin key
//   presence-server migrate [--status]     applies (or lists) the database's schema migrations
//   presence-server import-lowdb DATA_DIR  copies an embedded install into an empty database
//   presence-server devnet [--port N]      runs a devnet anvil for many servers to share
//   presence-server backup DIR / restore DIR  copies an embedded install (while it runs) / back
//   presence-server rotate-master-key      re-seals the secrets under PRESENCE_NEW_MASTER_KEY (master-key-rotation.ts)
//   presence-server surfaces create NAME   makes a surface token for a bot (shown once); list, revoke ID|NAME
// With PRESENCE_DATABASE_URL the commands work on the database, beside running servers (every
// write is a transaction there); without it on the data directory, which one process owns.
// Each command is a file in cli/; this one only parses and maps a failure to its exit code.

import { isPresenceError } from '@presence/core';
import { Command } from 'commander';
import { registerAccounts } from './cli/accounts';
import { registerBackup } from './cli/backup';
import { registerDevnet } from './cli/devnet';
import { fail } from './cli/fail';
import { registerImportLowdb } from './cli/import-lowdb';
import { registerMigrate } from './cli/migrate';
import { registerRestore } from './cli/restore';
import { registerRotateMasterKey } from './cli/rotate-master-key';
import { registerServe } from './cli/serve';
import { registerSurfaces } from './cli/surfaces';
import { ConfigError } from './config';
import { REFUSED_EXIT_CODE, StartRefused } from './start-refused';

const program = new Command('presence-server').description('Presence server and operator commands');

// In this order in `--help`.
registerServe(program);
registerAccounts(program);
registerSurfaces(program);
registerMigrate(program);
registerImportLowdb(program);
registerRotateMasterKey(program);
registerDevnet(program);
registerBackup(program);
registerRestore(program);

program.parseAsync().catch((e: unknown) => {
  if (e instanceof ConfigError) fail(e.message, 2);
  if (e instanceof StartRefused) fail(e.message, REFUSED_EXIT_CODE);
  if (isPresenceError(e)) fail(`${e.type} — ${e.detail}`, 1);
  fail((e as Error).message, 1);
});
