// Helpers for the wallet end-to-end tests: policies, accounts with their own wallet, balances
// read straight from the devnet through the server's chain port, the devnet's own JSON-RPC
// (found from anvil's command line), events, and Uniswap V2 arithmetic to check quotes against
// the pools' reserves.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chain as chainLayer } from '@presence/core';
import { call, openStream, type SseFrame, type TestServer } from './harness';

export type Hex = `0x${string}`;

/** A policy that lets anything through without a hold (no deny rules, high caps). */
export const OPEN_POLICY = {
  per_tx_cap: '100000 USD',
  confirm_over: '100000 USD',
  daily_cap: '1000000 USD',
  deny: [] as { action?: string; token?: string; to?: string }[],
  withdraw_allowlist: [] as string[],
  max_slippage_bps: 100,
  confirm_timeout_s: 600,
};
export type PolicyDoc = typeof OPEN_POLICY & { passkey_over?: string };

export async function putPolicy(s: { url: string }, key: string, patch: Partial<PolicyDoc>) {
  const r = await call(s.url, 'PUT', '/v1/wallet/policy', { key, body: { ...OPEN_POLICY, ...patch } });
  assert.equal(r.status, 200, r.text);
  return r.json;
}

/** A fresh account (so its wallet, daily spend and events start empty) and its admin key. */
export async function newAccount(s: TestServer, name: string) {
  const { admin } = await s.core.accounts.create(name);
  const key = admin.secret;
  const w = await call(s.url, 'GET', '/v1/wallet', { key });
  assert.equal(w.status, 200, w.text);
  return { name, key, address: w.json.address as Hex };
}

export const portOf = (s: TestServer) => {
  const w = s.core.wallet;
  if (!w) throw new Error('the server runs without a chain');
  return w.chain;
};
export const tokenOf = (s: TestServer, symbol: string) => chainLayer.resolveToken(portOf(s).tokenList, symbol);

/** Every balance of `owner` (ETH and listed tokens), in base units, read from the devnet. */
export async function balances(s: TestServer, owner: Hex): Promise<Record<string, bigint>> {
  const b = await portOf(s).balances(owner);
  const out: Record<string, bigint> = { ETH: b.eth };
  for (const t of b.tokens) out[t.token.symbol] = t.amount;
  return out;
}

export const units = (text: string, decimals: number) => chainLayer.parseUnits(text, decimals);

/** Uniswap V2's getAmountOut (0.3% fee), the arithmetic the router quotes with. */
export function amountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  const withFee = amountIn * 997n;
  return (withFee * reserveOut) / (reserveIn * 1000n + withFee);
}

/** The "(quoted Y T)" part of a swap summary, in base units of T, and the minimum it implies. */
export function quotedOf(summary: string, decimals: number, slippageBps: number) {
  const m = /for at least [\d.]+ (\w+) \(quoted ([\d.]+) (\w+)\)/.exec(summary);
  if (!m) throw new Error(`no quote in summary: ${summary}`);
  const quoted = units(m[2] as string, decimals);
  return { quoted, min: (quoted * BigInt(10_000 - slippageBps)) / 10_000n, symbol: m[3] as string };
}

/** Replays the account's events (from the start) until `pred` finds one; returns it. */
export async function eventMatching(
  s: { url: string },
  key: string,
  pred: (f: SseFrame) => boolean,
  timeoutMs = 10_000,
): Promise<SseFrame> {
  const st = openStream(s.url, '/v1/events?last_event_id=0', key);
  try {
    await st.until(() => st.frames.some(pred), timeoutMs);
    return st.frames.find(pred) as SseFrame;
  } finally {
    await st.close();
  }
}

/** Every event of the account so far (replayed from the start, stopping at the newest id). */
export async function allEvents(s: TestServer, account: string, key: string): Promise<SseFrame[]> {
  const { latest } = await s.core.events.bounds({ accountId: account, kind: 'live' });
  if (latest === 0) return [];
  const st = openStream(s.url, '/v1/events?last_event_id=0', key);
  try {
    await st.until(() => st.frames.some((f) => Number(f.id) >= latest));
    return st.frames;
  } finally {
    await st.close();
  }
}

/** Transactions the devnet has mined from `address` (its confirmed nonce). */
export const minedFrom = (s: TestServer, address: Hex) => portOf(s).nonceOf(address, 'latest');

// ---- the devnet of a server running in another process ----

/** Alive and not a zombie. */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** anvil processes serving `dataDir`'s devnet, with their RPC URLs (Linux: read from /proc). */
export function anvilsOf(dataDir: string): { pid: number; rpcUrl: string }[] {
  const state = path.join(dataDir, 'devnet', 'state.json');
  const found: { pid: number; rpcUrl: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!path.basename(argv[0] ?? '').startsWith('anvil') || !argv.includes(state) || !running(Number(entry))) continue;
      const port = argv[argv.indexOf('--port') + 1];
      found.push({ pid: Number(entry), rpcUrl: `http://127.0.0.1:${port}` });
    } catch {}
  }
  return found;
}

export async function rpc<T = unknown>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export async function until(pred: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const end = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const randomAddress = (): Hex =>
  `0x${Array.from({ length: 40 }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('')}` as Hex;
