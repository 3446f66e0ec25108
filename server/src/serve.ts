// Running a server as a process, for `npm start` (src/main.ts, through tsx) and `presence-server
// serve` (the built dist/, plain Node): read the environment, start the server, print the ready
// line (and, once, the bootstrap keys), stop cleanly on SIGINT/SIGTERM.
import path from 'node:path';
import { BOOTSTRAP_KEYS_FILE } from './bootstrap-keys';
import { ConfigError, loadConfig } from './config';
import { REFUSED_EXIT_CODE, StartRefused } from './start-refused';
import { type RunningServer, startServer } from './start-server';

let server: RunningServer | null = null;
let stopping = false;
function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`presence: ${signal}, shutting down\n`);
  if (!server) return; // still starting: main() shuts down as soon as the start finishes
  const force = setTimeout(() => process.exit(1), 10_000);
  force.unref();
  server.close().then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(`presence: shutdown failed: ${(e as Error).message}\n`);
      process.exit(1);
    },
  );
}

/** Starts the server this process is for; exits the process on a bad setting or a failed start. */
export async function serve(): Promise<void> {
  // Signal handlers go in first: whoever waits for the ready line may signal us the instant it
  // appears, and a signal that beats its handler would kill us without a clean shutdown.
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`presence: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  let started: RunningServer;
  try {
    started = await startServer({
      config,
      // Readable lines for someone watching a terminal, JSON lines for whatever collects them.
      logFormat: config.PRESENCE_LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json'),
      progress: (line) => process.stdout.write(`presence: ${line}\n`),
    });
  } catch (e) {
    // A setting only the start can judge (PRESENCE_CHAIN=devnet without @presence/devnet): one line, like loadConfig's.
    if (e instanceof ConfigError) {
      process.stderr.write(`presence: ${e.message}\n`);
      process.exit(2);
    }
    if (e instanceof StartRefused) {
      process.stderr.write(`presence: ${e.message}\n`);
      process.exit(REFUSED_EXIT_CODE);
    }
    const hint =
      (e as NodeJS.ErrnoException).code === 'EADDRINUSE' ? ' (is another server running? set PRESENCE_PORT to use another port)' : '';
    process.stderr.write(`presence: could not start: ${(e as Error).message}${hint}\n`);
    process.exit(1);
  }
  server = started;
  if (stopping) {
    stopping = false;
    return stop('stop requested during start');
  }
  // One write, so whoever waits for the ready line reads the keys with it. The keys are printed
  // once, by the first start that listens; never written to the log.
  const keys = started.bootstrap;
  process.stdout.write(
    `Presence listening on ${started.url} (data in ${config.PRESENCE_DATA_DIR})\n` +
      (keys
        ? `\nCreated account "${keys.account}". Its keys are shown once, here, and saved to ${path.join(config.PRESENCE_DATA_DIR, BOOTSTRAP_KEYS_FILE)} (mode 0600):\n` +
          `  live  ${keys.live}\n  test  ${keys.test}\n\n`
        : ''),
  );
}
