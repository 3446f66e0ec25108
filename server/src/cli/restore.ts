// `presence-server restore DIR`: a backup copied back into an empty or absent data directory
// with no server running on it (src/backup.ts).

import path from 'node:path';
import type { Command } from 'commander';
import { restoreDataDir } from '../backup';
import { invocationDir, loadConfig } from '../config';

export function registerRestore(program: Command) {
  program
    .command('restore')
    .argument('<dir>', 'a directory `presence-server backup` wrote')
    .description('copy a backup into PRESENCE_DATA_DIR, which must be empty or absent, with no server running on it')
    .action((dir: string) => {
      const config = loadConfig();
      const from = path.resolve(invocationDir(process.env), dir);
      const files = restoreDataDir(from, config.PRESENCE_DATA_DIR);
      process.stdout.write(`restored ${from} into ${config.PRESENCE_DATA_DIR} (${files} files); start the server on it\n`);
    });
}
