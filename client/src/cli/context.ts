// What every command gets: where to write, whether --json is on, and a client built from
// PRESENCE_TOKEN / PRESENCE_URL or the saved login (the environment wins, per the spec).
import type { Command } from 'commander';
import { createPresenceClient, DEFAULT_BASE_URL, type PresenceClient } from '../client';
import { CliError } from './cli-error';
import { configPath, readConfig } from './config-file';
import { exitCodes } from './exit-codes';

export type CliIo = {
  env: NodeJS.ProcessEnv;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Where `chat` reads a session from; process.stdin when absent. */
  stdin?: NodeJS.ReadableStream;
};

export type Settings = { url: string; token: string | undefined; tokenSource: 'env' | 'config' | null; configFile: string };

export type CliContext = ReturnType<typeof createContext>;

export function createContext(io: CliIo) {
  const debug = io.env.PRESENCE_DEBUG === '1';
  /** Presence-Mode of the last answer, so writes made with a test key can say nothing was stored. */
  let lastMode: string | null = null;

  function settings(): Settings {
    const configFile = configPath(io.env);
    const saved = readConfig(configFile);
    const envToken = io.env.PRESENCE_TOKEN || undefined;
    return {
      url: io.env.PRESENCE_URL || saved.url || DEFAULT_BASE_URL,
      token: envToken ?? saved.token,
      tokenSource: envToken ? 'env' : saved.token ? 'config' : null,
      configFile,
    };
  }

  function client(override: { url?: string; token?: string } = {}): PresenceClient {
    const s = settings();
    const token = override.token ?? s.token;
    if (!token) throw new CliError('auth', 'no key: set PRESENCE_TOKEN or run `presence login --key <key>`', exitCodes.auth);
    const url = override.url ?? s.url;
    if (!/^https?:\/\/[^/\s]+/.test(url))
      throw new CliError('usage', `${JSON.stringify(url)} is not a server address such as ${DEFAULT_BASE_URL}`, exitCodes.usage);
    return createPresenceClient({
      baseUrl: url,
      token,
      onResponse: (info) => {
        lastMode = info.mode;
        if (debug) {
          const flags = [`attempt ${info.attempt}`, info.mode && `mode ${info.mode}`, info.replayed && 'replayed'].filter(Boolean);
          io.stderr(`debug: ${info.method} ${info.path} → ${info.status} (${flags.join(', ')})\n`);
        }
      },
    });
  }

  /** --json is a program-level option, accepted before or after the command. */
  const json = (cmd: Command): boolean => Boolean(cmd.optsWithGlobals().json);

  return {
    io,
    debug,
    settings,
    client,
    json,
    /** JSON for programs, or the human rendering. */
    print(cmd: Command, value: unknown, human: () => string) {
      io.stdout(json(cmd) ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
    },
    /** After a write: a test key's writes are simulated, and people should know. */
    noteIfTest() {
      if (lastMode === 'test') io.stderr('note: test key — the write was simulated; nothing was stored\n');
    },
  };
}
