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
// Each command is a file beside this one, which only parses and maps a failure to its exit code.
// (In src/cli/, not src/: the command files import the server's modules, never the other way.)

import { isPresenceError } from '@presence/core';
import { Command } from 'commander';
import { ConfigError } from '../config';
import { REFUSED_EXIT_CODE, StartRefused } from '../start-refused';
import { registerAccounts } from './accounts';
import { registerBackup } from './backup';
import { registerDevnet } from './devnet';
import { fail } from './fail';
import { registerImportLowdb } from './import-lowdb';
import { registerMigrate } from './migrate';
import { registerRestore } from './restore';
import { registerRotateMasterKey } from './rotate-master-key';
import { registerServe } from './serve';
import { registerSurfaces } from './surfaces';

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
  // a bad argument ("accounts create 'bad name!'") is a usage error, as a bad setting is
  if (isPresenceError(e)) fail(`${e.type} — ${e.detail}`, e.type === 'invalid_request' ? 2 : 1);
  fail((e as Error).message, 1);
});
