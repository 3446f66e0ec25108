// The server as an operator installs and runs it: protocol, core and server packed with `npm
// pack` (which builds each: prepack), installed from the tarballs into an empty project with
// `--omit=optional`, then `presence-server serve` run there with plain Node — where tsx is not
// even installed, so a built server that still needed it could not start. Without the optional
// @presence/devnet a devnet start is one line and exit code 2, while a real network
// (PRESENCE_RPC_URL: here a devnet this test runs) works; after `npm install` of the devnet's
// tarball the devnet start works too. Last, the repository's own `presence-server serve`, which
// runs the dist/ those packs built.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Devnet, startDevnet } from '@presence/devnet';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { removeDir, tempDir } from './harness';
import { type Child, serverCli, spawnServer } from './process';
import { pack, run, sizeOf, userEnv } from './user-shell';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const unset = Object.fromEntries(
  Object.keys(process.env)
    .filter((k) => k.startsWith('npm_') || k === 'INIT_CWD' || k === 'NODE_OPTIONS' || k.startsWith('PRESENCE_'))
    .map((k) => [k, undefined]),
);

const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
const environ = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
const children = (pid: number) => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

/** Stops a served process with SIGTERM, as an operator would; answers its exit code. */
async function stop(child: Child) {
  child.proc.kill('SIGTERM');
  return child.exited;
}

let work: string;
let project: string;
let tarballs: Record<string, string>;
let chain: Devnet;
const running: Child[] = [];
const served = () => path.join(project, 'node_modules/.bin/presence-server');
/** The test's own devnet as a "real network": its RPC URL and its deployment as the token list. */
const tokenList = () => path.join(work, 'tokens.json');

beforeAll(async () => {
  work = tempDir('presence-serve-');
  tarballs = Object.fromEntries(['protocol', 'core', 'devnet', 'server'].map((name) => [name, pack(path.join(repo, name), work)]));
  project = path.join(work, 'operator');
  mkdirSync(project);
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'operator', private: true }));
  run(
    'npm',
    ['install', '--omit=optional', '--no-audit', '--no-fund', '--prefer-offline', tarballs.protocol, tarballs.core, tarballs.server].map(
      String,
    ),
    project,
  );
  chain = await startDevnet({ dataDir: path.join(work, 'chain') });
  writeFileSync(tokenList(), JSON.stringify(chain.deployment));
}, 600_000);

afterAll(async () => {
  for (const child of running) if (child.proc.exitCode === null) child.proc.kill('SIGKILL');
  await chain?.stop();
  if (work) removeDir(work);
});

it('the install holds neither tsx nor the devnet, and tsx cannot be loaded from it', () => {
  const modules = path.join(project, 'node_modules');
  const present = ['tsx', 'esbuild', '@presence/devnet', '@foundry-rs/anvil', '@uniswap/v2-core', 'solc'].filter((name) =>
    existsSync(path.join(modules, name)),
  );
  expect(present).toEqual([]);
  const tsx = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('tsx')"], { cwd: project, encoding: 'utf8' });
  expect(tsx.stderr).toContain('ERR_MODULE_NOT_FOUND');
  console.log(`serve: install of @presence/server with --omit=optional: ${(sizeOf(modules) / 1e6).toFixed(1)} MB`);
});

it('a devnet start without @presence/devnet says in one line what to install, exit code 2, data directory untouched', () => {
  const dataDir = path.join(work, 'no-devnet');
  const r = spawnSync(served(), ['serve'], {
    cwd: project,
    env: { ...userEnv(), PRESENCE_PORT: '0', PRESENCE_DATA_DIR: dataDir, PRESENCE_CHAIN: 'devnet' },
    encoding: 'utf8',
  });
  expect(r.status).toBe(2);
  expect(r.stderr.trim().split('\n')).toEqual([
    'presence: PRESENCE_CHAIN=devnet needs the optional package @presence/devnet, which is not installed: run `npm install @presence/devnet`, or set PRESENCE_CHAIN, PRESENCE_RPC_URL and PRESENCE_TOKEN_LIST for a real network',
  ]);
  expect(existsSync(dataDir)).toBe(false);
});

it('without the devnet, a real network (PRESENCE_RPC_URL and a token list) serves', async () => {
  const dataDir = path.join(work, 'real-network');
  const child = await spawnServer(
    {
      ...unset,
      PRESENCE_PORT: '0',
      PRESENCE_DATA_DIR: dataDir,
      PRESENCE_CHAIN: 'anvil',
      PRESENCE_RPC_URL: chain.rpcUrl,
      PRESENCE_TOKEN_LIST: tokenList(),
    },
    { cwd: project, command: [served(), 'serve'] },
  );
  running.push(child);
  expect(child.stdout()).toContain(`Presence listening on ${child.url} (data in ${dataDir})`);
  const health = await fetch(`${child.url}/v1/health`).then((r) => r.json());
  expect(health).toMatchObject({ ok: true, chain: { id: chain.chainId } });
  expect(await stop(child)).toBe(0);
});

it('with @presence/devnet installed from its tarball, `presence-server serve` runs the devnet with plain Node: ready line, a real call, no tsx', async () => {
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', String(tarballs.devnet)], project);
  console.log(
    `serve: install of @presence/server with @presence/devnet: ${(sizeOf(path.join(project, 'node_modules')) / 1e6).toFixed(1)} MB`,
  );
  const dataDir = path.join(work, 'devnet');
  const started = Date.now();
  const child = await spawnServer(
    { ...unset, PRESENCE_PORT: '0', PRESENCE_DATA_DIR: dataDir },
    { cwd: project, command: [served(), 'serve'], timeoutMs: 60_000 },
  );
  running.push(child);
  console.log(`serve: installed presence-server serve ready (devnet freshly deployed) in ${Date.now() - started} ms`);
  expect(child.stdout()).toContain('devnet ready (freshly deployed)');
  const live = JSON.parse(readFileSync(path.join(dataDir, 'bootstrap-keys.json'), 'utf8')).live as string;
  const me = await fetch(`${child.url}/v1/presence/me`, { headers: { authorization: `Bearer ${live}` } });
  expect(me.status).toBe(200);
  expect(await me.json()).toMatchObject({ mode: 'live' });
  const pid = child.proc.pid as number;
  // The bin is the built dist/cli.js run by node itself: no loader flag, no NODE_OPTIONS.
  const argv = cmdline(pid);
  expect(path.basename(argv[0] as string)).toBe('node');
  expect(argv.slice(1)).toEqual([served(), 'serve']);
  expect(environ(pid).filter((v) => v.startsWith('NODE_OPTIONS='))).toEqual([]);
  expect(await stop(child)).toBe(0);
  expect(child.stdout()).toContain('SIGTERM, shutting down');
});

it("the repository's `presence-server serve` runs the built dist/ with plain Node, the same config and ready line as npm start", async () => {
  const dataDir = path.join(work, 'repo');
  const child = await spawnServer(
    {
      ...unset,
      PRESENCE_PORT: '0',
      PRESENCE_DATA_DIR: dataDir,
      PRESENCE_CHAIN: 'anvil',
      PRESENCE_RPC_URL: chain.rpcUrl,
      PRESENCE_TOKEN_LIST: tokenList(),
    },
    {
      cwd: repo,
      command: [process.execPath, serverCli, 'serve'],
    },
  );
  running.push(child);
  expect(child.stdout()).toContain(`Presence listening on ${child.url} (data in ${dataDir})`);
  expect((await fetch(`${child.url}/v1/health`)).status).toBe(200);
  // bin/presence-server.js runs the server in a child: plain node on server/dist/cli.js, with
  // the export condition that resolves the workspace packages to their dist/ too.
  const [server] = children(child.proc.pid as number);
  const argv = cmdline(server as number);
  expect(argv.slice(1)).toEqual(['--conditions=presence-built', path.join(repo, 'server/dist/cli.js'), 'serve']);
  expect(argv.join(' ')).not.toContain('tsx');
  // A bad setting: the same one line and exit code as npm start's.
  const bad = spawnSync(process.execPath, [serverCli, 'serve'], { env: { ...userEnv(), PRESENCE_PORT: 'eighty' }, encoding: 'utf8' });
  expect([bad.status, bad.stderr.trim()]).toEqual([2, 'presence: invalid PRESENCE_PORT="eighty": a port number: digits only, 0-65535']);
  // SIGTERM to the bin reaches the server, which shuts down cleanly.
  expect(await stop(child)).toBe(0);
  expect(child.stdout()).toContain('SIGTERM, shutting down');
  expect(existsSync(path.join(dataDir, 'server.pid'))).toBe(false);
});

it('the installed package carries no TypeScript source and runs no tsx', () => {
  const server = path.join(project, 'node_modules/@presence/server');
  expect(existsSync(path.join(server, 'src'))).toBe(false);
  expect(existsSync(path.join(server, 'bin'))).toBe(false);
  const manifest = JSON.parse(readFileSync(path.join(server, 'package.json'), 'utf8'));
  expect(manifest.bin).toEqual({ 'presence-server': './dist/cli.js' });
  expect(JSON.stringify(manifest.dependencies)).not.toContain('tsx');
  expect(manifest.optionalDependencies).toEqual({ '@presence/devnet': '^0.1.0' });
  // (npm ls exits 1 when it finds nothing: the output is the answer.)
  expect(spawnSync('npm', ['ls', 'tsx', '--all', '--parseable'], { cwd: project, env: userEnv(), encoding: 'utf8' }).stdout.trim()).toBe(
    '',
  );
});
