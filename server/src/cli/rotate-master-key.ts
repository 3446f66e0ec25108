// `presence-server rotate-master-key`: re-seals the secrets under PRESENCE_NEW_MASTER_KEY
// (the procedure is src/master-key-rotation.ts).

import type { Command } from 'commander';
import { loadConfig } from '../config';
import { rotateMasterKeyCommand } from '../master-key-rotation';

export function registerRotateMasterKey(program: Command) {
  program
    .command('rotate-master-key')
    .description(
      're-seal every wallet key and stored answer from PRESENCE_MASTER_KEY (or the data directory’s master.key) to PRESENCE_NEW_MASTER_KEY; stop every server first. Safe to run again after a crash midway',
    )
    .action(async () => {
      const line = await rotateMasterKeyCommand(loadConfig(), process.env);
      process.stdout.write(`${line}\n`);
    });
}
