// `presence-server devnet [--port N] [--state FILE]`: a devnet anvil in the foreground for many
// servers to share (the run itself is src/devnet-command.ts).

import path from 'node:path';
import type { Command } from 'commander';
import { invocationDir } from '../config';
import { runDevnet } from '../devnet-command';
import { fail } from './fail';

export function registerDevnet(program: Command) {
  program
    .command('devnet')
    .description(
      'run a devnet chain (anvil, as the embedded devnet runs it) in the foreground for many servers to share; print its RPC URL. Servers attach with PRESENCE_CHAIN=devnet PRESENCE_RPC_URL=<url>; the first deploys the market',
    )
    .option('--port <port>', 'port on 127.0.0.1 (0: any free one)', '8545')
    .option('--state <file>', 'keep the chain in this file across restarts (anvil --state)')
    .action(async ({ port, state }: { port: string; state?: string }) => {
      if (!/^\d{1,5}$/.test(port) || Number(port) > 65_535) fail(`--port must be a port number, not ${JSON.stringify(port)}`, 2);
      const code = await runDevnet({
        port: Number(port),
        statePath: state ? path.resolve(invocationDir(process.env), state) : undefined,
        out: (line) => process.stdout.write(`${line}\n`),
      });
      process.exit(code);
    });
}
