// `npm start`: read the environment, start the server, print the ready line (and the
// bootstrap keys on first start), stop cleanly on SIGINT/SIGTERM.
import { ConfigError, loadConfig } from './config';
import { startServer } from './start-server';

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
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({ config, progress: (line) => process.stdout.write(`presence: ${line}\n`) });
  } catch (e) {
    process.stderr.write(`presence: could not start: ${(e as Error).message}\n`);
    process.exit(1);
  }
  if (server.bootstrap) {
    // Printed once, on the start that created them; never written to the log.
    process.stdout.write(
      `\nCreated account "${server.bootstrap.account}". Its keys are shown once here and saved to ${config.PRESENCE_DATA_DIR}/bootstrap-keys.json (mode 0600):\n` +
        `  live  ${server.bootstrap.live}\n  test  ${server.bootstrap.test}\n\n`,
    );
  }
  process.stdout.write(`Presence listening on ${server.url}\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`presence: ${signal}, shutting down\n`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    server.close().then(
      () => process.exit(0),
      (e) => {
        process.stderr.write(`presence: shutdown failed: ${(e as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

void main();
