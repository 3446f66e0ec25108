// Running a server as a process, for `npm start` (src/main.ts, through tsx) and `presence-server
// serve` (the built dist/, plain Node): read the environment, start the server, print the ready
// line (and, once, the bootstrap keys), stop cleanly on SIGINT/SIGTERM, and exit with
// CRASH_EXIT_CODE after one fatal log line on an error nobody handled (crash-exit.ts), or stop
// with CHAIN_LOST_EXIT_CODE after one error line when the embedded devnet is gone for good
// (chain-lost-exit.ts).
// The bootstrap keys are printed only to a terminal: a service manager's journal (stdout not a
// terminal) would keep the admin key for anyone who reads the logs. Elsewhere a line names the
// file they were saved to (0600), and in the JSON format every stdout line is JSON.
import path from 'node:path';
import { redactMessage } from '@presence/core';
import { BOOTSTRAP_KEYS_FILE } from './bootstrap-keys';
import { stopOnChainLost } from './chain-lost-exit';
import { ConfigError, loadConfig } from './config';
import { defaultServerId } from './coordination';
import { exitOnCrash } from './crash-exit';
import type { LogFormat } from './logger';
import { FATAL, type ProcessLine, processLine } from './process-lines';
import { REFUSED_EXIT_CODE, StartRefused } from './start-refused';
import { type RunningServer, startServer } from './start-server';

let server: RunningServer | null = null;
let stopping = false;
// Until the configuration names the format: what the terminal decides.
const defaultFormat = (): LogFormat => (process.stdout.isTTY ? 'pretty' : 'json');
let line: ProcessLine = processLine(defaultFormat());
const say = (msg: string) => process.stdout.write(line(msg));
/** A clean shutdown, for a signal (exit code 0) or because the chain is gone (`code`). */
function stop(signal: string, code = 0) {
  if (stopping) return;
  stopping = true;
  say(`${signal}, shutting down`);
  if (!server) return; // still starting: main() shuts down as soon as the start finishes
  // The last line says how it ended, so a log shows a stop that finished from one that did not.
  const exit = (code: number, how = 'stopped') => {
    say(`${how} (exit code ${code})`);
    process.exit(code);
  };
  // A shutdown that does not finish is a failure, unless the stop already had one to report.
  const failed = code || 1;
  const force = setTimeout(() => exit(failed, 'stopped before the shutdown finished, after 10 s'), 10_000);
  force.unref();
  server.close().then(
    () => exit(code),
    (e) => {
      process.stderr.write(`presence: shutdown failed: ${redactMessage(e instanceof Error ? e.message : String(e))}\n`);
      exit(failed);
    },
  );
}

/** The started server, or the process exits with a line saying why (2: a setting, 3: refused, 1: anything else). */
async function startOrExit(config: ReturnType<typeof loadConfig>, logFormat: LogFormat): Promise<RunningServer> {
  try {
    return await startServer({ config, logFormat, progress: (line) => say(line) });
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
    process.stderr.write(`presence: could not start: ${redactMessage(e instanceof Error ? e.message : String(e))}${hint}\n`);
    process.exit(1);
  }
}

/** The ready line, and on the first start the bootstrap keys (shown only on a terminal). */
function announceReady(started: RunningServer, dataDir: string, logFormat: LogFormat) {
  // One write, so whoever waits for the ready line reads what follows it with it.
  const keys = started.bootstrap;
  const keysFile = path.join(dataDir, BOOTSTRAP_KEYS_FILE);
  const ready = line(`Presence listening on ${started.url} (data in ${dataDir})`, { url: started.url });
  const created = `created account "${keys?.account}"`;
  if (!keys) process.stdout.write(ready);
  else if (!process.stdout.isTTY) {
    const fields = { account: keys.account, keys_file: keysFile };
    process.stdout.write(ready + line(`${created}: its keys are saved to ${keysFile} (mode 0600), and shown only on a terminal`, fields));
  } else if (logFormat === 'json') {
    const fields = { account: keys.account, keys_file: keysFile, live: keys.live, test: keys.test };
    process.stdout.write(ready + line(`${created}: its keys are shown once, here, and saved to ${keysFile} (mode 0600)`, fields));
  } else {
    process.stdout.write(
      `${ready}\nCreated account "${keys.account}". Its keys are shown once, here, and saved to ${keysFile} (mode 0600):\n` +
        `  live  ${keys.live}\n  test  ${keys.test}\n\n`,
    );
  }
}

/** Starts the server this process is for; exits the process on a bad setting or a failed start. */
export async function serve(): Promise<void> {
  // Signal handlers go in first: whoever waits for the ready line may signal us the instant it
  // appears, and a signal that beats its handler would kill us without a clean shutdown.
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // Through the server's logger once it runs (its bindings, its format, its buffer flushed
  // first); before that, as the process's own lines.
  exitOnCrash(process, {
    log: (fields, msg) => {
      if (server) server.log.fatal(fields, msg);
      else process.stdout.write(line(msg, fields, FATAL));
    },
    flush: async () => server?.flushLog(),
  });
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
  // Readable lines for someone watching a terminal, JSON lines for whatever collects them.
  const logFormat = config.PRESENCE_LOG_FORMAT ?? defaultFormat();
  line = processLine(logFormat, config.PRESENCE_SERVER_ID ?? defaultServerId());
  const started = await startOrExit(config, logFormat);
  server = started;
  if (stopping) {
    stopping = false;
    return stop('stop requested during start');
  }
  announceReady(started, config.PRESENCE_DATA_DIR, logFormat);
  stopOnChainLost(started.chainLost, { log: (fields, msg) => started.log.error(fields, msg), stop: (code) => stop('chain lost', code) });
}
