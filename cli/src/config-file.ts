// The CLI's saved login: $XDG_CONFIG_HOME/presence/config.json (default ~/.config), mode
// 0600 inside a 0700 directory, written by rename so a crash never leaves half a file.
// Modes are put right on every write and read, so a file an earlier version (or a hand)
// left readable by others is closed the next time the CLI touches it.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { CliError } from './cli-error';
import { exitCodes } from './exit-codes';

export const SavedConfig = z.object({ url: z.string().optional(), token: z.string().optional() });
export type SavedConfig = z.infer<typeof SavedConfig>;

export function configPath(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  // The XDG spec says relative values are invalid and must be ignored.
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || homedir(), '.config');
  return path.join(base, 'presence', 'config.json');
}

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/**
 * Takes group and other access away from the file and its directory; returns a note for each
 * one that had some. (mkdir and writeFile modes only apply to what they create, and through the umask.)
 */
function ownerOnly(file: string): string[] {
  const notes: string[] = [];
  for (const [target, mode] of [
    [path.dirname(file), DIR_MODE],
    [file, FILE_MODE],
  ] as const) {
    const was = statSync(target).mode & 0o777;
    if ((was & 0o077) === 0) continue;
    chmodSync(target, mode);
    notes.push(
      `${target} was open to other users (mode ${was.toString(8).padStart(4, '0')}); it is now ${mode.toString(8).padStart(4, '0')}`,
    );
  }
  return notes;
}

export type ReadConfigOptions = {
  /** Hears about modes that had to be tightened. */
  note?: (line: string) => void;
  /** Renders a command for the error messages' hints, e.g. `npx presence logout`. */
  command?: (args: string) => string;
};

export function readConfig(file: string, options: ReadConfigOptions = {}): SavedConfig {
  if (!existsSync(file)) return {};
  for (const line of ownerOnly(file)) options.note?.(line);
  const logout = options.command?.('logout') ?? 'presence logout';
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new CliError('config', `${file} is not valid JSON; fix it or run \`${logout}\``, exitCodes.other);
  }
  const parsed = SavedConfig.safeParse(raw);
  if (!parsed.success) throw new CliError('config', `${file} does not hold { url, token }; run \`${logout}\``, exitCodes.other);
  return parsed.data;
}

export function writeConfig(file: string, config: SavedConfig) {
  mkdirSync(path.dirname(file), { recursive: true, mode: DIR_MODE });
  chmodSync(path.dirname(file), DIR_MODE); // also when it was there already, from an earlier version
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: FILE_MODE });
  chmodSync(tmp, FILE_MODE); // whatever the umask said
  renameSync(tmp, file);
}

/** Returns whether there was a file to remove. */
export function removeConfig(file: string): boolean {
  if (!existsSync(file)) return false;
  rmSync(file);
  return true;
}
