// Where the embedded store keeps things: one file per account and record family under
// <dataDir>/data/<family>/<account>.json(l). Account ids become file names, so they are held
// to a safe alphabet.
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export const fileSafe = (id: string) => {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw new Error(`unsafe id for a file name: ${id}`);
  return id;
};

/** `<root>/<family>/<account><ext>` */
export const accountFile = (root: string, family: string, accountId: string, ext: '.json' | '.jsonl') =>
  path.join(root, family, `${fileSafe(accountId)}${ext}`);

/** The accounts that have a `.json` document in `dir` (leftover temp files are not documents). */
export function documentIds(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => /^([A-Za-z0-9_-]{1,64})\.json$/.exec(name)?.[1])
    .filter((id): id is string => id !== undefined);
}

/** A JSON file's parsed content, or null when there is no such file. */
export async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}
