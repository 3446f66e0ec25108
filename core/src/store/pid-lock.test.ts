// The one-process pid file (the server's data directory, the bots'): a second holder is refused
// whether it is another process or this one, a release lets the next one in, and a pid file
// left by a process that is gone (a crash) holds nothing.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { pidFileHolder, takePidFile } from './pid-lock';

let dir: string;
let file: string;
const busy = (pid: number) => `held by ${pid}`;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'pid-lock-'));
  file = path.join(dir, 'test.pid');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('is taken once per process, private, and released', () => {
  const release = takePidFile(file, busy);
  expect(readFileSync(file, 'utf8')).toBe(String(process.pid));
  if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(() => takePidFile(file, busy)).toThrow(`held by ${process.pid}`);
  release();
  takePidFile(file, busy)();
});

it('is refused while another live process holds it, and taken over once that process is gone', async () => {
  const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const exited = new Promise((r) => other.once('exit', r));
  writeFileSync(file, String(other.pid));
  expect(pidFileHolder(file)).toBe(other.pid);
  expect(() => takePidFile(file, busy)).toThrow(`held by ${other.pid}`);
  other.kill();
  await exited;
  expect(pidFileHolder(file)).toBeNull();
  takePidFile(file, busy)();
});
