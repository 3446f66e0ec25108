// `presence-server serve`: the server itself, as `npm start` runs it (src/serve.ts).

import type { Command } from 'commander';
import { serve } from '../serve';

export function registerServe(program: Command) {
  program
    .command('serve')
    .description(
      'run the server, configured by the PRESENCE_* environment like `npm start` (in the repository: from server/dist/, built by `npm run build`)',
    )
    .action(() => serve());
}
