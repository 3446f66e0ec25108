// What every command gets: where to write, whether --json is on, and a client built from
// PRESENCE_TOKEN / PRESENCE_URL or the saved login (the environment wins, per the spec).

import { createPresenceClient, DEFAULT_BASE_URL, type PresenceClient } from '@presence/client';
import type { Command } from 'commander';
import { CliError } from './cli-error';
import { configPath, readConfig, type SavedConfig } from './config-file';
import { type ExitCode, exitCodes } from './exit-codes';
import { type Column, renderPairs, renderTable } from './table';

export type CliIo = {
  env: NodeJS.ProcessEnv;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Where `chat` reads a session and `login --with-token` a key from; process.stdin when absent. */
  stdin?: NodeJS.ReadableStream;
  /** Whether stdout is a terminal: aligned tables there, TSV anywhere else (see table.ts). */
  isTTY?: boolean;
  /** How to run this CLI again from the user's shell, for printed hints (see invocation.ts); `presence` when absent. */
  self?: string;
};

export type Settings = { url: string; token: string | undefined; tokenSource: 'env' | 'config' | null; configFile: string };

export type CliContext = ReturnType<typeof createContext>;

export function createContext(io: CliIo) {
  const debug = io.env.PRESENCE_DEBUG === '1';
  const self = io.self ?? 'presence';
  /** A command line to print as a hint, in the form that runs from where the user is. */
  const command = (args: string) => `${self} ${args}`;
  const readSaved = (file: string) => readConfig(file, { command, note: (line) => io.stderr(`note: ${line}\n`) });
  /** Presence-Mode of the last answer, so writes made with a test key can say nothing was stored. */
  let lastMode: string | null = null;

  /**
   * Where the key and server come from. The environment wins, so the file is read only for
   * what the environment leaves out: a broken file cannot stop a command the environment
   * fully configures. With PRESENCE_TOKEN set, an unreadable file is noted and ignored (the
   * server then defaults); without it, the file is the only key there is and its error stands.
   */
  function settings(): Settings {
    const configFile = configPath(io.env);
    const envToken = io.env.PRESENCE_TOKEN || undefined;
    const envUrl = io.env.PRESENCE_URL || undefined;
    let saved: SavedConfig = {};
    if (!envToken || !envUrl) {
      try {
        saved = readSaved(configFile);
      } catch (e) {
        if (!envToken) throw e;
        noteUnreadable(e);
      }
    }
    return {
      url: envUrl || saved.url || DEFAULT_BASE_URL,
      token: envToken ?? saved.token,
      tokenSource: envToken ? 'env' : saved.token ? 'config' : null,
      configFile,
    };
  }

  /** For login and logout, which replace or remove the file: its contents are a hint at most. */
  function savedIfReadable(): { configFile: string; saved: SavedConfig } {
    const configFile = configPath(io.env);
    try {
      return { configFile, saved: readSaved(configFile) };
    } catch (e) {
      noteUnreadable(e);
      return { configFile, saved: {} };
    }
  }

  let noted = false;
  function noteUnreadable(e: unknown) {
    if (noted) return;
    noted = true;
    io.stderr(`note: ignoring the saved login: ${e instanceof Error ? e.message.replace(/;.*$/, '') : String(e)}\n`);
  }

  function client(override: { url?: string; token?: string } = {}): PresenceClient {
    // Given both (login), the saved file has nothing to add and is not read.
    const s = override.token !== undefined && override.url !== undefined ? null : settings();
    const token = override.token ?? s?.token;
    if (!token)
      throw new CliError(
        'auth',
        `no key: set PRESENCE_TOKEN or run \`${command('login --with-token')}\` (the key on stdin)`,
        exitCodes.auth,
      );
    const url = override.url ?? s?.url ?? DEFAULT_BASE_URL;
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

  const layout = io.isTTY ? 'aligned' : 'tsv';
  /** --headers (a program-level option): keep the header row in TSV; set before each action. */
  let headers = false;
  /** A command that printed its answer but did not succeed (a ping not delivered) sets the code runCli returns. */
  let exitCode: ExitCode = exitCodes.ok;

  return {
    io,
    debug,
    /** A table in this run's layout: aligned on a terminal, TSV when piped (a header row only with --headers). */
    table: (columns: Column[], rows: string[][]) => renderTable(columns, rows, layout, { headers }),
    keepHeaders(keep: boolean) {
      headers = keep;
    },
    /** Label/value lines in this run's layout. */
    pairs: (pairs: [string, string][]) => renderPairs(pairs, layout),
    command,
    settings,
    savedIfReadable,
    client,
    json,
    /** JSON for programs, or the human rendering. */
    print(cmd: Command, value: unknown, human: () => string) {
      io.stdout(json(cmd) ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
    },
    /** The answer is printed, but scripts must see it failed: `presence webhooks test … && deploy`. */
    failWith(code: ExitCode) {
      exitCode = code;
    },
    exitCode: () => exitCode,
    /** After a write: a test key's writes are simulated, and people should know. */
    noteIfTest() {
      if (lastMode === 'test') io.stderr('note: test key — the write was simulated; nothing was stored\n');
    },
  };
}
