// The append log's reading of what it finds: a torn last line is cut, an earlier line that is
// not JSON fails the read, a line of JSON of the wrong shape fails it too or, when the caller
// asks, is handed to it with its line number and left out; a whole last line missing its
// newline gets one, so the next append starts a line of its own.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAppendLog, type Misfit } from './append-log';

const Entry = z.object({ n: z.number() });
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function logWith(text: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'append-log-'));
  dirs.push(dir);
  const file = path.join(dir, 'log.jsonl');
  writeFileSync(file, text);
  return { file, log: createAppendLog(file, Entry, { fsync: false }) };
}

describe('append log read', () => {
  it('hands a line of the wrong shape to onMisfit with its number, keeps the rest, and cuts a torn last line after it', async () => {
    const { file, log } = logWith('{"n":1}\n\n{"n":"two"}\n{"n":3}\n{"n":4}\n{"n":');
    const misfits: Misfit[] = [];
    expect(await log.readAll((m) => misfits.push(m))).toEqual([{ n: 1 }, { n: 3 }, { n: 4 }]);
    expect(misfits.map(({ line, text }) => ({ line, text }))).toEqual([{ line: 3, text: '{"n":"two"}' }]);
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n\n{"n":"two"}\n{"n":3}\n{"n":4}\n');
    await log.append([{ n: 5 }]);
    await log.close();
    expect(readFileSync(file, 'utf8').endsWith('{"n":4}\n{"n":5}\n')).toBe(true);
  });

  it('reports a misfit on the last line rather than cutting it as torn', async () => {
    const { log } = logWith('{"n":1}\n{"m":2}\n');
    const misfits: Misfit[] = [];
    expect(await log.readAll((m) => misfits.push(m))).toEqual([{ n: 1 }]);
    expect(misfits.map((m) => m.line)).toEqual([2]);
  });

  it('fails the read on a misfit when no onMisfit is given, and on an earlier line that is not JSON', async () => {
    await expect(logWith('{"n":"x"}\n{"n":1}\n').log.readAll()).rejects.toThrow(/corrupt line 1/);
    await expect(logWith('{"n":1}\n{"n":\n{"n":2}\n').log.readAll(() => undefined)).rejects.toThrow(/corrupt line 2/);
  });

  it('ends a whole last line without its newline, so the next append is a line of its own', async () => {
    const { file, log } = logWith('{"n":1}\n{"n":2}');
    expect(await log.readAll()).toEqual([{ n: 1 }, { n: 2 }]);
    await log.append([{ n: 3 }]);
    await log.close();
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
    expect(await createAppendLog(file, Entry).readAll()).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });
});
