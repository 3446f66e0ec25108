// presence-bots: runs the Telegram and/or Discord bot against PRESENCE_URL until SIGINT or
// SIGTERM. Configuration errors are one line on stderr and exit code 2.
import { BotsConfigError, loadBotsConfig } from './config';
import { createLogger } from './log';
import { runBots } from './run-bots';

const log = createLogger();

// Handlers first: a signal that arrives right after the "running" line must still stop us
// cleanly (a signal that beats its handler kills the process without stopping the bots).
let bots: Awaited<ReturnType<typeof runBots>> | null = null;
let stopping = false;
function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log('info', `${signal}: stopping`);
  if (!bots) return; // still starting: main() stops them as soon as they are up
  bots.stop().then(
    () => process.exit(0),
    (e: unknown) => {
      log('error', 'stopping failed', { error: String(e) });
      process.exit(1);
    },
  );
}
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));

async function main() {
  let config: ReturnType<typeof loadBotsConfig>;
  try {
    config = loadBotsConfig(process.env);
  } catch (e) {
    if (e instanceof BotsConfigError) {
      process.stderr.write(`presence-bots: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  bots = await runBots(config, log);
  if (stopping) {
    stopping = false;
    return shutdown('stop requested during start');
  }
  const on = [config.telegram && 'telegram', config.discord && 'discord'].filter(Boolean).join(' and ');
  log('info', `presence-bots running (${on}) against ${config.presenceUrl}; data in ${config.dataDir}`);
}

main().catch((e: unknown) => {
  log('error', `presence-bots could not start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
