// The published packages as a user gets them: protocol, client and cli packed with `npm pack`
// (which builds them: prepack), installed from the tarballs into an empty project, then used
// there with plain Node against a real server — imported from an ES module and require()d from a
// CommonJS project (`npm init -y`'s kind: the SDK's `default` export condition serves Node's
// require(esm)) — type-checked by a `nodenext` TypeScript consumer, and the installed
// `presence` bin run. What the install must not pull in (the server's
// dependencies, tsx, esbuild) is checked, and its size printed.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { removeDir, startTestServer, type TestServer, tempDir } from './harness';
import { pack, run, sizeOf, userEnv } from './user-shell';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const packages = ['protocol', 'client', 'cli'];

let work: string;
let project: string;
let server: TestServer;

beforeAll(async () => {
  work = tempDir('presence-pack-');
  const tarballs = packages.map((name) => pack(path.join(repo, name), work));
  project = path.join(work, 'consumer');
  mkdirSync(project);
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  run('npm', ['install', '--no-audit', '--no-fund', ...tarballs], project);
  server = await startTestServer();
}, 600_000);

afterAll(async () => {
  await server?.close();
  if (server) removeDir(server.dataDir);
  if (work) removeDir(work);
});

it('the tarballs hold the built files and a manifest pointing at them, and leave the repo as it was', () => {
  const manifest = JSON.parse(run('node', ['-p', 'JSON.stringify(require("@presence/client/package.json"))'], project));
  expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js', default: './dist/index.js' });
  expect(manifest.private).toBeUndefined();
  expect(manifest.license).toBe('MIT');
  expect(existsSync(path.join(project, 'node_modules/@presence/client/LICENSE'))).toBe(true);
  expect(existsSync(path.join(project, 'node_modules/@presence/client/src'))).toBe(false);
  // prepack's rewrite is undone by postpack: the repo's manifest still points at the source.
  expect(
    run('git', ['status', '--porcelain', '--', ...packages.map((p) => `${p}/package.json`), ...packages.map((p) => `${p}/LICENSE`)], repo),
  ).toBe('');
});

it('plain Node imports the SDK from the install and makes a call against a real server', async () => {
  writeFileSync(
    path.join(project, 'use.mjs'),
    `import { createPresenceClient, PresenceApiError } from '@presence/client';
const presence = createPresenceClient({ baseUrl: process.env.PRESENCE_URL, token: process.env.PRESENCE_TOKEN });
const me = await presence.presence.me();
const denied = await createPresenceClient({ baseUrl: process.env.PRESENCE_URL, token: 'prs_live_nope' }).presence.me().catch((e) => e);
console.log(JSON.stringify({ name: me.name, api: denied instanceof PresenceApiError, type: denied.type }));
`,
  );
  // Asynchronously: the server answers from this very process.
  const { stdout: out } = await promisify(execFile)(process.execPath, ['use.mjs'], {
    cwd: project,
    env: userEnv({ PRESENCE_URL: server.url, PRESENCE_TOKEN: server.live }),
  });
  expect(JSON.parse(out)).toEqual({ name: expect.any(String), api: true, type: 'auth' });
});

it('a CommonJS project require()s the SDK and the protocol, and makes a call against a real server', async () => {
  // A project of its own (no "type": CommonJS, as `npm init -y` writes it) using the same install.
  const cjs = path.join(work, 'commonjs-consumer');
  mkdirSync(cjs);
  writeFileSync(path.join(cjs, 'package.json'), JSON.stringify({ name: 'commonjs-consumer', version: '1.0.0', main: 'index.js' }));
  symlinkSync(path.join(project, 'node_modules'), path.join(cjs, 'node_modules'), 'dir');
  writeFileSync(
    path.join(cjs, 'index.js'),
    `const { createPresenceClient, PresenceApiError } = require('@presence/client');
const { problemCatalogue } = require('@presence/protocol');
(async () => {
  const presence = createPresenceClient({ baseUrl: process.env.PRESENCE_URL, token: process.env.PRESENCE_TOKEN });
  const me = await presence.presence.me();
  const denied = await createPresenceClient({ baseUrl: process.env.PRESENCE_URL, token: 'prs_live_nope' }).presence.me().catch((e) => e);
  console.log(JSON.stringify({ name: me.name, api: denied instanceof PresenceApiError, type: denied.type, auth: problemCatalogue.auth.status }));
})();
`,
  );
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['index.js'], {
    cwd: cjs,
    env: userEnv({ PRESENCE_URL: server.url, PRESENCE_TOKEN: server.live }),
  });
  expect(JSON.parse(stdout)).toEqual({ name: expect.any(String), api: true, type: 'auth', auth: 401 });
  // Node 20.19–22.11 may warn that require(esm) is experimental; nothing else goes to stderr.
  expect(stderr.split('\n').filter((l) => l.trim() && !/ExperimentalWarning|--trace-warnings/.test(l))).toEqual([]);
});

it('a moduleResolution nodenext TypeScript project type-checks against the installed types', () => {
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2023', 'dom'],
        strict: true,
        noEmit: true,
        types: [],
      },
      files: ['index.ts'],
    }),
  );
  writeFileSync(
    path.join(project, 'index.ts'),
    `import { createPresenceClient, type PresenceView } from '@presence/client';
import { problemCatalogue } from '@presence/protocol';
const presence = createPresenceClient({ baseUrl: 'http://127.0.0.1:8787', token: 'prs_live_x' });
export const me: Promise<PresenceView> = presence.presence.me();
export const name = async (): Promise<string> => (await me).name;
export const types = Object.keys(problemCatalogue);
// @ts-expect-error pin needs a key: the types are real, not any
presence.memory.pin({});
`,
  );
  const tsc = path.join(repo, 'node_modules/typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
  expect(r.stdout + r.stderr).toBe('');
  expect(r.status).toBe(0);
});

it('the installed presence bin runs with plain Node', () => {
  expect(run(path.join(project, 'node_modules/.bin/presence'), ['--version'], project).trim()).toBe('0.1.0');
  const help = run(path.join(project, 'node_modules/.bin/presence'), ['--help'], project);
  expect(help).toContain('presence completion');
});

it('installs none of the server side or the dev tooling, and reports its size', () => {
  const modules = path.join(project, 'node_modules');
  const present = ['viem', 'lowdb', '@foundry-rs/anvil', 'ai', 'tsx', 'esbuild', '@presence/core', '@presence/server'].filter((name) =>
    existsSync(path.join(modules, name)),
  );
  expect(present).toEqual([]);
  const installed = execFileSync('npm', ['ls', '--all', '--parseable'], { cwd: project, env: userEnv(), encoding: 'utf8' })
    .trim()
    .split('\n')
    .slice(1)
    .map((p) => path.relative(modules, p));
  const mb = sizeOf(modules) / 1e6;
  console.log(`pack: install of @presence/{protocol,client,cli}: ${installed.length} packages, ${mb.toFixed(1)} MB`);
  expect(installed.sort()).toEqual(['@presence/cli', '@presence/client', '@presence/protocol', 'commander', 'zod']);
});
