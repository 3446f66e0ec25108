// The CLI's saved login: $XDG_CONFIG_HOME/presence/config.json (default ~/.config), mode
// 0600 inside a 0700 directory, written by rename so a crash never leaves half a file.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

export function readConfig(file: string): SavedConfig {
  if (!existsSync(file)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new CliError('config', `${file} is not valid JSON; fix it or run \`presence logout\``, exitCodes.other);
  }
  const parsed = SavedConfig.safeParse(raw);
  if (!parsed.success) throw new CliError('config', `${file} does not hold { url, token }; run \`presence logout\``, exitCodes.other);
  return parsed.data;
}

export function writeConfig(file: string, config: SavedConfig) {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600); // whatever the umask said
  renameSync(tmp, file);
}

/** Returns whether there was a file to remove. */
export function removeConfig(file: string): boolean {
  if (!existsSync(file)) return false;
  rmSync(file);
  return true;
}
