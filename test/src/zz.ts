import { loadConfig, startServer } from '@presence/server';
import { call, removeDir, tempDir } from './harness';

const dataDir = tempDir();
const s = await startServer({
  config: loadConfig({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0' }),
  logger: { level: 'error' },
  maintenanceMs: 0,
  standingMs: 0,
});
const key = s.bootstrap!.live;
const to = '0xAC4ABDb88B04b9EBC7eeda3e4EDB9AEefaAcFCaC';
console.log((await call(s.url, 'POST', '/v1/wallet/withdraw', { key, body: { to, amount: '5 USDC' } })).text);
console.log(
  (
    await call(s.url, 'PUT', '/v1/wallet/policy', {
      key,
      body: {
        per_tx_cap: '50 USD',
        confirm_over: '10 USD',
        daily_cap: '200 USD',
        deny: [{ to }],
        withdraw_allowlist: [to],
        max_slippage_bps: 100,
        confirm_timeout_s: 600,
      },
    })
  ).text,
);
console.log((await call(s.url, 'POST', '/v1/wallet/withdraw', { key, body: { to, amount: '5 USDC' } })).text);
console.log((await call(s.url, 'POST', '/v1/wallet/intent', { key, body: { do: `send 1 USDC to ${to}` } })).text);
console.log((await call(s.url, 'POST', '/v1/messages', { key, body: { text: `send 1 USDC to ${to}`, allow_act: true } })).text);
await s.close();
removeDir(dataDir);
process.exit(0);
