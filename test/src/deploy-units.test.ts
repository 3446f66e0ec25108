// deploy/systemd's units as systemd reads them (`systemd-analyze verify`, and `security
// --offline` for their exposure, where the machine has systemd-analyze: neither needs a
// running systemd), their order (PostgreSQL, the devnet, the servers, the bots), and deploy/'s
// variables against the one configuration table, so the templates and the units name only
// variables that exist.
import { spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findOnPath } from '../../scripts/chromium';
import { removeDir, tempDir } from './harness';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const UNITS = path.join(ROOT, 'deploy/systemd');
const units = readdirSync(UNITS).filter((f) => f.endsWith('.service'));
const timers = readdirSync(UNITS).filter((f) => f.endsWith('.timer'));
const unit = (name: string) => readFileSync(path.join(UNITS, name), 'utf8');
/** Every value of `key=` in a unit, in order. */
const values = (text: string, key: string) => [...text.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => (m[1] as string).trim());
/** The units as systemctl would start them: the template through an instance, in a directory of their own. */
function unitsDir(): { dir: string; names: string[] } {
  const dir = tempDir('presence-units-');
  for (const u of [...units, ...timers]) copyFileSync(path.join(UNITS, u), path.join(dir, u));
  copyFileSync(path.join(UNITS, 'presence-server@.service'), path.join(dir, 'presence-server@8801.service'));
  const names = ['presence-server@8801.service', ...units.filter((u) => !u.includes('@')), ...timers].map((u) => `./${u}`);
  return { dir, names };
}
const analyze = findOnPath(['systemd-analyze']);

describe('deploy/systemd', () => {
  it('has the server template, the shared devnet, the bots and the daily backup', () => {
    expect(units.sort()).toEqual([
      'presence-backup.service',
      'presence-bots.service',
      'presence-devnet.service',
      'presence-server@.service',
    ]);
    expect(timers).toEqual(['presence-backup.timer']);
  });

  it.skipIf(!analyze)('passes systemd-analyze verify, without a warning about our files (skipped where systemd-analyze is missing)', () => {
    const { dir, names } = unitsDir();
    try {
      const r = spawnSync(analyze as string, ['verify', '--man=no', ...names], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      // Unknown keys and bad values are warnings with status 0: none may name our files.
      expect(r.stderr.split('\n').filter((l) => l.includes(dir) || /presence-/.test(l))).toEqual([]);
    } finally {
      removeDir(dir);
    }
  });

  it.skipIf(!analyze)('rates every service 4.5 or better in systemd-analyze security (skipped where systemd-analyze is missing)', () => {
    const { dir, names } = unitsDir();
    try {
      for (const name of names.filter((n) => n.endsWith('.service'))) {
        const r = spawnSync(analyze as string, ['security', '--offline=true', name], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
        const score = /Overall exposure level for \S+: ([\d.]+)/.exec(r.stdout)?.[1];
        expect(score, `${name}: ${r.stdout.slice(-300)}${r.stderr}`).toBeDefined();
        expect(Number(score), name).toBeLessThanOrEqual(4.5);
      }
    } finally {
      removeDir(dir);
    }
  });

  it("leaves Node's JIT its writable executable memory, and says so; finds node on PATH, not at one fixed place", () => {
    for (const u of units) {
      const text = unit(u);
      expect(values(text, 'MemoryDenyWriteExecute'), u).toEqual([]);
      expect(text, u).toMatch(/Left open on purpose: MemoryDenyWriteExecute \(Node's/);
      for (const line of [...values(text, 'ExecStart'), ...values(text, 'ExecStartPost')])
        expect(line, u).toMatch(/^\/usr\/bin\/env node /);
    }
  });

  it('brings PostgreSQL, the devnet, the servers and the bots up in order, each started only once it answers', () => {
    const server = unit('presence-server@.service');
    for (const key of ['Wants', 'After'])
      expect(values(server, key).join(' '), key).toMatch(/postgresql\.service.*presence-devnet\.service/);
    expect(values(server, 'ExecStartPost')).toEqual([
      '/usr/bin/env node /opt/presence/deploy/wait-ready.mjs http://127.0.0.1:%i/v1/health',
    ]);
    const devnet = unit('presence-devnet.service');
    expect(values(devnet, 'ExecStart')[0]).toMatch(/devnet --port 8545 /);
    expect(values(devnet, 'ExecStartPost')).toEqual([
      '/usr/bin/env node /opt/presence/deploy/wait-ready.mjs --json-rpc http://127.0.0.1:8545',
    ]);
    for (const text of [server, devnet]) expect(values(text, 'Type')).toEqual(['exec']);
    // The bots follow nginx and the recipe's three servers, and run built JavaScript: no tsx.
    const bots = unit('presence-bots.service');
    expect(values(bots, 'After').join(' ')).toMatch(
      /nginx\.service presence-server@8801\.service presence-server@8802\.service presence-server@8803\.service/,
    );
    expect(values(bots, 'ExecStart')).toEqual(['/usr/bin/env node /opt/presence/bots/dist/main.js']);
    // The backup runs daily through its timer, and after a missed run at the next boot.
    const timer = unit('presence-backup.timer');
    expect(values(timer, 'OnCalendar')).toEqual(['*-*-* 03:00:00']);
    expect(values(timer, 'Persistent')).toEqual(['yes']);
    expect(values(unit('presence-backup.service'), 'Type')).toEqual(['oneshot']);
  });

  it('runs as many servers as there are ports: each instance listens on the port it is named for, with a directory and id of its own', () => {
    const template = readFileSync(path.join(UNITS, 'presence-server@.service'), 'utf8');
    /** The instance's Environment= assignments, with %i and %H as systemd expands them. */
    const environment = (instance: string) =>
      Object.fromEntries(
        [
          ...template
            .replace(/%i/g, instance)
            .replace(/%H/g, 'host')
            .matchAll(/^Environment=(.*)$/gm),
        ]
          .flatMap((m) => (m[1] as string).trim().split(/\s+/))
          .map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]),
      );
    const ports = Array.from({ length: 12 }, (_, i) => String(8801 + i));
    const servers = ports.map(environment);
    expect(servers.map((e) => e.PRESENCE_PORT)).toEqual(ports);
    expect(new Set(servers.map((e) => e.PRESENCE_DATA_DIR)).size).toBe(ports.length);
    expect(new Set(servers.map((e) => e.PRESENCE_SERVER_ID)).size).toBe(ports.length);
    expect(environment('8810')).toMatchObject({ PRESENCE_DATA_DIR: '/var/lib/presence/server-8810', PRESENCE_SERVER_ID: 'host-8810' });
  });

  it('names only variables of the configuration table, in the units and the environment template', () => {
    const table = readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');
    const documented = new Set([...table.matchAll(/^\|\s*`([A-Z][A-Z0-9_]*)`/gm)].map((m) => m[1]));
    const named = [
      ...units.flatMap((u) => [
        ...readFileSync(path.join(UNITS, u), 'utf8').matchAll(/\b(PRESENCE_[A-Z0-9_]+|TELEGRAM_[A-Z_]+|DISCORD_[A-Z_]+)=/g),
      ]),
      // Set or commented out, every variable but the system's PATH.
      ...['presence.env', 'bots.env'].flatMap((f) =>
        [...readFileSync(path.join(ROOT, 'deploy', f), 'utf8').matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].filter((m) => m[1] !== 'PATH'),
      ),
    ].map((m) => m[1] as string);
    expect(named.length).toBeGreaterThan(5);
    expect([...new Set(named)].filter((n) => !documented.has(n))).toEqual([]);
  });
});
