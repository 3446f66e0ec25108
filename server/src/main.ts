// `npm start`: read the environment, start the server, print the ready line (and the
// bootstrap keys on first start), stop cleanly on SIGINT/SIGTERM.
import { ConfigError, loadConfig } from './config';
import { type RunningServer, startServer } from './start-server';

// Signal handlers go in first: whoever waits for the ready line may signal us the instant it
// appears, and a signal that beats its handler would kill us without a clean shutdown.
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
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));

async function main() {
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
    started = await startServer({ config, progress: (line) => process.stdout.write(`presence: ${line}\n`) });
  } catch (e) {
    process.stderr.write(`presence: could not start: ${(e as Error).message}\n`);
    process.exit(1);
  }
  server = started;
  if (stopping) {
    stopping = false;
    return stop('stop requested during start');
  }
  if (started.bootstrap) {
    // Printed once, on the start that created them; never written to the log.
    process.stdout.write(
      `\nCreated account "${started.bootstrap.account}". Its keys are shown once here and saved to ${config.PRESENCE_DATA_DIR}/bootstrap-keys.json (mode 0600):\n` +
        `  live  ${started.bootstrap.live}\n  test  ${started.bootstrap.test}\n\n`,
    );
  }
  process.stdout.write(`Presence listening on ${started.url}\n`);
}

void main();
