// The asynchronous stdout destination: lines arrive whole and in order, close() writes out
// everything buffered, a reader that falls behind costs lines (counted), never the server's wait.
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stdoutDestination } from './log-destination';

const dir = mkdtempSync(path.join(tmpdir(), 'presence-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fileFd = (name: string) => {
  const file = path.join(dir, name);
  return { file, fd: openSync(file, 'w') };
};

describe('stdoutDestination', () => {
  it('writes every line, in order, by the time close() resolves; later lines at once', async () => {
    const { file, fd } = fileFd('all.log');
    const d = stdoutDestination({ fd });
    const lines = Array.from({ length: 5_000 }, (_, i) => `{"n":${i}}\n`);
    for (const l of lines) d.write(l);
    await d.close();
    d.write('{"after":true}\n');
    expect(readFileSync(file, 'utf8')).toBe(`${lines.join('')}{"after":true}\n`);
  });

  it('past its buffer drops lines and says how many, instead of holding them all', async () => {
    const { file, fd } = fileFd('drops.log');
    const d = stdoutDestination({ fd, maxBuffered: 1 });
    for (let i = 0; i < 100; i++) d.write(`line ${i}\n`);
    await d.close();
    const written = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(written[0]).toBe('line 0');
    expect(JSON.parse(written.at(-1) as string)).toMatchObject({ level: 40, msg: 'dropped 99 log lines: stdout was not read fast enough' });
    expect(written).toHaveLength(2);
  });
});
