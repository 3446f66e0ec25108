#!/usr/bin/env node
// The readiness of a Presence service, for systemd: deploy/systemd's units run this as
// ExecStartPost, so a unit counts as started (and units ordered after it start) only once its
// service answers. Plain Node, no dependencies (it runs from the clone, before and without a build).
//   wait-ready.mjs URL               until GET URL answers 2xx (a server: /v1/health)
//   wait-ready.mjs --json-rpc URL    until URL answers eth_chainId (the devnet)
// Exits 0 once it answers; 1 after WAIT_READY_SECONDS (default 110; systemd's
// TimeoutStartSec ends it anyway), with one line naming what did not answer.
const args = process.argv.slice(2);
const jsonRpc = args[0] === '--json-rpc';
const url = jsonRpc ? args[1] : args[0];
if (!url) {
  process.stderr.write('usage: wait-ready.mjs [--json-rpc] URL\n');
  process.exit(2);
}
// biome-ignore lint/suspicious/noUndeclaredEnvVars: systemd's unit may set it; no turbo task runs this
const by = Date.now() + Number(process.env.WAIT_READY_SECONDS ?? 110) * 1000;

async function answers() {
  try {
    const res = await fetch(
      url,
      jsonRpc
        ? {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
            signal: AbortSignal.timeout(2000),
          }
        : { signal: AbortSignal.timeout(2000) },
    );
    if (!res.ok) return false;
    if (jsonRpc) return typeof (await res.json()).result === 'string';
    await res.arrayBuffer(); // read to the end, so the connection is let go
    return true;
  } catch {
    return false;
  }
}

while (!(await answers())) {
  if (Date.now() > by) {
    process.stderr.write(`wait-ready: ${url} did not answer\n`);
    process.exit(1);
  }
  await new Promise((r) => setTimeout(r, 250));
}
