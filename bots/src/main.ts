// presence-bots: runs the Telegram and/or Discord bot against PRESENCE_URL until SIGINT or
// SIGTERM. Configuration errors are one line on stderr and exit code 2; a bot that cannot
// start is one line and exit code 1. A signal always ends the process: during the start it
// cuts the start short; afterwards work in flight gets STOP_LIMIT_MS, and a second signal
// ends it at once. `presence-bots try` runs the Telegram bot against a loopback Bot API
// chatted with in the terminal instead (src/try/try.ts).
import { redactMessage } from '@presence/core/files';
import { BotsConfigError, loadBotsConfig } from './config';
import { createLogger, logFormatFor } from './log';
import type { RunningBots } from './run-bots';

// The bots (discord.js, grammY) and `try` are loaded once they are going to run: a setting
// refused, or a signal during the start, is told without waiting seconds for their imports.

if (process.argv[2] === 'try') {
  const ended = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => ended.abort());
  import('./try/try')
    .then(({ runTry }) =>
      runTry({
        env: process.env,
        input: process.stdin,
        write: (text) => process.stdout.write(text),
        warn: (line) => process.stderr.write(`${line}\n`),
        signal: ended.signal,
      }),
    )
    .then(
      (code) => process.exit(code),
      (e: unknown) => {
        process.stderr.write(`presence-bots try: ${redactMessage(e instanceof Error ? e.message : String(e))}\n`);
        process.exit(1);
      },
    );
} else {
  runService();
}

function runService() {
  const STOP_LIMIT_MS = 10_000;

  // JSON lines unless someone watches a terminal (PRESENCE_LOG_FORMAT overrides).
  const log = createLogger(undefined, logFormatFor(process.env, process.stderr.isTTY === true));

  // Handlers first: a signal that arrives right after the "running" line must still stop us
  // cleanly (a signal that beats its handler kills the process without stopping the bots).
  let bots: RunningBots | null = null;
  const starting = new AbortController();
  let stopping = false;
  function shutdown(signal: string) {
    if (stopping) {
      log('warn', `${signal} again: exiting without waiting`);
      process.exit(1);
    }
    stopping = true;
    log('info', `${signal}: stopping`);
    setTimeout(() => {
      log('error', `still stopping after ${STOP_LIMIT_MS / 1000} s: exiting without waiting`);
      process.exit(1);
    }, STOP_LIMIT_MS).unref();
    if (!bots) {
      starting.abort(new Error(`${signal} during the start`)); // main() stops what had started, then exits
      return;
    }
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
    try {
      const { runBots } = await import('./run-bots');
      bots = await runBots(config, log, {}, starting.signal);
    } catch (e) {
      if (!starting.signal.aborted) throw e;
      log('info', 'stopped before the bots were up');
      process.exit(0);
    }
    const on = [config.telegram && 'telegram', config.discord && 'discord'].filter(Boolean).join(' and ');
    log('info', `presence-bots running (${on}) against ${config.presenceUrl}; data in ${config.dataDir}`);
  }

  main().catch((e: unknown) => {
    log('error', `presence-bots could not start: ${redactMessage(e instanceof Error ? e.message : String(e))}`);
    process.exit(1);
  });
}
