// The package's promises: zod and its own files only (so the SDK stays browser-safe), a
// complete problem catalogue whose statuses map back to one type, and schemas that accept
// the documented shapes and refuse what the API refuses.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defaultPolicy,
  generalProblemTypes,
  IntentResult,
  MemoryKey,
  PolicyDocument,
  PolicyRequest,
  PoolsViewSchema,
  Problem,
  problemCatalogue,
  problemTypeForStatus,
  problemTypes,
  queryInteger,
  StandingView,
} from './index';

const src = path.dirname(fileURLToPath(import.meta.url));

it('imports nothing but zod and its own files, and uses no Node global', () => {
  const files = readdirSync(src).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  expect(files.length).toBeGreaterThan(10);
  const bad: string[] = [];
  for (const f of files) {
    const text = readFileSync(path.join(src, f), 'utf8');
    for (const m of text.matchAll(/^(?:import|export)[^'"]*from\s+'([^']+)'/gm)) {
      const spec = m[1] as string;
      if (spec !== 'zod' && !spec.startsWith('./')) bad.push(`${f}: ${spec}`);
    }
    if (/\b(process|Buffer|require)\b[.(]/.test(text)) bad.push(`${f}: uses a Node global`);
  }
  expect(bad).toEqual([]);
});

describe('problem catalogue', () => {
  it('gives every type an error status and a title', () => {
    expect(problemTypes.length).toBeGreaterThan(15);
    for (const type of problemTypes) {
      const { status, title } = problemCatalogue[type];
      expect(type).toMatch(/^[a-z][a-z_]*$/);
      expect(Number.isInteger(status) && status >= 400 && status <= 599, `${type}: ${status}`).toBe(true);
      expect(title.trim().length, type).toBeGreaterThan(0);
    }
  });

  it('maps each general type back from its status, at most one per status', () => {
    const statuses = generalProblemTypes.map((t) => problemCatalogue[t].status);
    expect(new Set(statuses).size).toBe(statuses.length);
    for (const type of generalProblemTypes) expect(problemTypeForStatus(problemCatalogue[type].status)).toBe(type);
  });

  it('picks the general type where several share a status, the only one where one has it, none otherwise', () => {
    expect(problemTypeForStatus(409)).toBe('conflict');
    expect(problemTypeForStatus(503)).toBe('unavailable');
    expect(problemTypeForStatus(502)).toBe('model_unavailable');
    // idempotency_mismatch and intent_unresolved share 422 and neither stands for the other.
    expect(problemTypeForStatus(422)).toBeUndefined();
    expect(problemTypeForStatus(418)).toBeUndefined();
    expect(problemTypeForStatus(504)).toBeUndefined();
  });
});

describe('schemas', () => {
  it('Problem keeps extension members and needs the four fields', () => {
    const body = { type: 'policy_block', title: 'Blocked by spend policy', status: 409, detail: 'over cap', rule: 'per_tx_cap' };
    expect(Problem.parse(body)).toEqual(body);
    expect(Problem.safeParse({ type: 'internal', status: 500 }).success).toBe(false);
  });

  it('a query-string integer is digits only, still `integer` in the document', () => {
    const q = queryInteger(z.number().int().min(0));
    expect(q.parse('42')).toBe(42);
    expect(q.parse(7)).toBe(7);
    for (const v of ['', ' 5', '0x10', '1e3', '1.5', '-1', 'soon']) expect(q.safeParse(v).success, v).toBe(false);
    expect(z.toJSONSchema(q, { io: 'input' })).toMatchObject({ type: 'integer', minimum: 0 });
  });
  it('MemoryKey accepts <namespace>:<name> only', () => {
    expect(MemoryKey.safeParse('pair:WETH-USDC').success).toBe(true);
    expect(MemoryKey.safeParse('wallet:x').success).toBe(false);
    expect(MemoryKey.safeParse(`token:${'a'.repeat(65)}`).success).toBe(false);
  });

  it('the default policy is a valid policy document; a bad amount is not', () => {
    expect(PolicyDocument.parse(defaultPolicy)).toEqual(defaultPolicy);
    expect(PolicyDocument.safeParse({ ...defaultPolicy, per_tx_cap: 'fifty' }).success).toBe(false);
    expect(PolicyDocument.safeParse({ ...defaultPolicy, per_tx_cap: 'fifty USD' }).success).toBe(false);
    // Sent, at most 10^12 of its unit; stored before the bound, still read.
    expect(PolicyRequest.safeParse({ ...defaultPolicy, daily_cap: '1000000000000.0 USD' }).success).toBe(true);
    expect(PolicyRequest.safeParse({ ...defaultPolicy, daily_cap: '1000000000000.01 USD' }).success).toBe(false);
    expect(PolicyRequest.safeParse({ ...defaultPolicy, daily_cap: `1${'0'.repeat(80)} USD` }).success).toBe(false);
    expect(PolicyRequest.safeParse({ ...defaultPolicy, deny: [{ token: 'X', extra: 1 }] }).success).toBe(false);
    expect(PolicyDocument.safeParse({ ...defaultPolicy, daily_cap: `1${'0'.repeat(80)} USD` }).success).toBe(true);
  });

  it('IntentResult tells a done intent from a held one by status', () => {
    const held = { status: 'needs_confirm', intent_id: 'in_1', confirm_id: 'cf_1', summary: 's', amount: '20 USDC', expires_at: 'x' };
    expect(IntentResult.parse(held).status).toBe('needs_confirm');
    expect(IntentResult.safeParse({ ...held, status: 'done' }).success).toBe(false);
  });

  it('chain and standing views parse their documented shapes', () => {
    const address = `0x${'ab'.repeat(20)}`;
    const pools = {
      as_of_block: 12,
      pools: [
        {
          pair: 'WETH-USDC',
          address,
          reserves: { WETH: '10 WETH', USDC: '30000 USDC' },
          price: '3000 USDC per WETH',
          depth_usd: 60000,
          as_of_block: 12,
        },
      ],
    };
    expect(PoolsViewSchema.parse(pools)).toEqual(pools);
    expect(PoolsViewSchema.safeParse({ ...pools, as_of_block: -1 }).success).toBe(false);
    const standing = {
      id: 'st_000000000001',
      text: 'tell me when WETH is below 2500 USD',
      trigger: { kind: 'price', token: 'WETH', op: 'below', threshold: '2500.00 USD' },
      action: { kind: 'notify' },
      state: 'active',
      armed: true,
      next_at: null,
      fired_count: 0,
      last_fired_at: null,
      created_at: '2025-01-01T00:00:00.000Z',
    };
    expect(StandingView.parse(standing)).toEqual(standing);
    const daily = { ...standing, trigger: { kind: 'daily', at: '08:00' }, action: { kind: 'balance' } };
    expect(StandingView.parse(daily)).toEqual(daily);
    const acting = { ...standing, action: { kind: 'act', intent: 'swap 1 WETH for USDC' } };
    expect(StandingView.parse(acting)).toEqual(acting);
    // Only the kinds core makes, each with its fields.
    expect(StandingView.safeParse({ ...standing, trigger: { kind: 'weekly', at: '08:00' } }).success).toBe(false);
    expect(StandingView.safeParse({ ...standing, trigger: { kind: 'price', token: 'WETH', op: 'below' } }).success).toBe(false);
    expect(StandingView.safeParse({ ...standing, action: { kind: 'act' } }).success).toBe(false);
  });
});
