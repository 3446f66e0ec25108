// The OpenAPI document as an integrator's tools take it, tools nobody here wrote (pinned
// devDependencies from the npm registry): Redocly's recommended lint and Spectral's
// spectral:oas find no error in it, and openapi-typescript turns it into types with which a
// small openapi-fetch client type-checks — six operations, typed request headers, a problem
// answer narrowed by its `type`, and a turn's SSE frames narrowed by their event name. The
// `@ts-expect-error` lines make the check two-sided: were a type not narrowed (or a required
// parameter optional), their line would compile, and the directive itself would be the error.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/test-app';

const require = createRequire(import.meta.url);
const run = promisify(execFile);
/** A package's CLI, run by this Node (no PATH lookup, no npx download). */
function cli(pkg: string, bin: string, args: string[], cwd: string) {
  const manifest = require.resolve(`${pkg}/package.json`);
  const script = path.join(path.dirname(manifest), (require(manifest) as { bin: Record<string, string> }).bin[bin] as string);
  return run(process.execPath, [script, ...args], { cwd, timeout: 170_000, maxBuffer: 16 * 1024 * 1024 }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
  );
}

let t: TestApp;
let dir: string;
let file: string;
beforeAll(async () => {
  t = await startTestApp();
  const r = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
  expect(r.statusCode).toBe(200);
  dir = mkdtempSync(path.join(tmpdir(), 'presence-openapi-'));
  file = path.join(dir, 'openapi.json');
  writeFileSync(file, r.body);
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the OpenAPI document, by third-party tools', () => {
  it('passes Redocly’s recommended lint with no error', { timeout: 180_000 }, async () => {
    const r = await cli('@redocly/cli', 'redocly', ['lint', file, '--extends=recommended', '--format=stylish'], dir);
    expect({ code: r.code, errors: r.out.split('\n').filter((l) => /\berror\b/.test(l)) }).toEqual({ code: 0, errors: [] });
  });

  it('passes Spectral’s spectral:oas with no error', { timeout: 180_000 }, async () => {
    const ruleset = path.join(dir, '.spectral.yaml');
    writeFileSync(ruleset, 'extends: ["spectral:oas"]\n');
    const r = await cli('@stoplight/spectral-cli', 'spectral', ['lint', file, '-r', ruleset, '--fail-severity=error'], dir);
    expect({ code: r.code, out: r.code === 0 ? '' : r.out }).toEqual({ code: 0, out: '' });
  });

  it('generates types (openapi-typescript) with which an openapi-fetch client type-checks', { timeout: 120_000 }, async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    writeFileSync(path.join(dir, 'api.d.ts'), astToString(await openapiTS(doc)));
    writeFileSync(path.join(dir, 'client.ts'), CLIENT);
    const fetchTypes = path.dirname(require.resolve('openapi-fetch/package.json'));
    const program = ts.createProgram([path.join(dir, 'client.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      skipLibCheck: true,
      types: [],
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      paths: { 'openapi-fetch': [fetchTypes] },
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
  });
});

/** An integrator's client: what it relies on the generated types for is the test. */
const CLIENT = `
import createClient from 'openapi-fetch';
import type { components, paths } from './api';

type Problem = components['schemas']['Problem'];
const api = createClient<paths>({ baseUrl: 'http://127.0.0.1:8787', headers: { Authorization: 'Bearer prs_test_x' } });

export async function tour(): Promise<string[]> {
  const seen: string[] = [];

  const me = await api.GET('/v1/presence/me');
  if (me.data) seen.push(me.data.name, me.data.wallet.spend);
  const mode: 'live' | 'test' | undefined = me.data?.mode;
  seen.push(String(mode));

  const pinned = await api.POST('/v1/memory/pin', {
    params: { header: { 'Idempotency-Key': 'pin-1' } },
    body: { key: 'token:WETH', note: 'watching' },
  });
  if (pinned.data) seen.push(pinned.data.key, String(pinned.data.changed));

  const pools = await api.GET('/v1/chain/pools', { params: { query: { pair: 'WETH-USDC' } } });
  for (const pool of pools.data?.pools ?? []) seen.push(pool.pair, String(pool.depth_usd));

  const safety = await api.GET('/v1/chain/safety', { params: { query: { token: 'SCAM' } } });
  if (safety.data) seen.push(safety.data.verdict);
  // @ts-expect-error the safety view requires token
  await api.GET('/v1/chain/safety', { params: { query: {} } });

  const intent = await api.POST('/v1/wallet/intent', {
    params: { header: { 'Idempotency-Key': 'swap-1' } },
    body: { do: 'swap 5 USDC for WETH' },
  });
  if (intent.data) {
    if (intent.data.status === 'needs_confirm') seen.push(intent.data.confirm_id, intent.data.expires_at);
    else seen.push(intent.data.tx, String(intent.data.block));
  }
  if (intent.error) {
    const problem: Problem = intent.error;
    seen.push(problem.detail);
    if (intent.error.type === 'policy_block') {
      const type: 'policy_block' = intent.error.type;
      seen.push(type, String(intent.error.rule));
    } else if (intent.error.type === 'intent_unresolved') {
      seen.push(intent.error.title);
    }
    // @ts-expect-error not a problem type this operation answers
    if (intent.error.type === 'confirm_expired') seen.push('never');
  }
  return seen;
}

// A JSON-only client: POST /v1/messages's answer is the turn (its SSE form is another media type).
const json = createClient<paths, 'application/json'>({ baseUrl: 'http://127.0.0.1:8787' });
export async function turn(): Promise<string> {
  const r = await json.POST('/v1/messages', { body: { text: 'how deep is WETH-USDC' } });
  return r.data ? r.data.reply + r.data.used.map((u) => u.tool).join() : '';
}
type Frame = components['schemas']['TurnStreamFrame'];
export const tokenText = (f: Frame): string => (f.event === 'token' ? f.data.text : f.event === 'done' ? f.data.reply : '');
`;
