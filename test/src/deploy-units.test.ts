// deploy/systemd's units as systemd reads them (`systemd-analyze verify`, where the machine
// has it: the check needs no running systemd), and deploy/'s variables against the one
// configuration table, so the template and the units name only variables that exist.
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
const analyze = findOnPath(['systemd-analyze']);

describe('deploy/systemd', () => {
  it('has the server template, the shared devnet and the bots', () => {
    expect(units.sort()).toEqual(['presence-bots.service', 'presence-devnet.service', 'presence-server@.service']);
  });

  it.skipIf(!analyze)('passes systemd-analyze verify, without a warning about our files (skipped where systemd-analyze is missing)', () => {
    const dir = tempDir('presence-units-');
    try {
      for (const u of units) copyFileSync(path.join(UNITS, u), path.join(dir, u));
      // A template is verified through an instance, as systemctl would start it.
      copyFileSync(path.join(UNITS, 'presence-server@.service'), path.join(dir, 'presence-server@8801.service'));
      const names = ['presence-server@8801.service', ...units.filter((u) => !u.includes('@'))].map((u) => `./${u}`);
      const r = spawnSync(analyze as string, ['verify', '--man=no', ...names], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      // Unknown keys and bad values are warnings with status 0: none may name our files.
      expect(r.stderr.split('\n').filter((l) => l.includes(dir) || /presence-/.test(l))).toEqual([]);
    } finally {
      removeDir(dir);
    }
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
      ...readFileSync(path.join(ROOT, 'deploy/presence.env'), 'utf8').matchAll(/^([A-Z][A-Z0-9_]*)=/gm),
    ].map((m) => m[1] as string);
    expect(named.length).toBeGreaterThan(5);
    expect([...new Set(named)].filter((n) => !documented.has(n))).toEqual([]);
  });
});
