import { writeFileSync } from 'node:fs';
import { startDevnet } from '@presence/devnet';
const d = await startDevnet({ dataDir: '/tmp/svbench/chain' });
writeFileSync('/tmp/svbench/tokens.json', JSON.stringify(d.deployment));
writeFileSync('/tmp/svbench/rpc', d.rpcUrl);
setInterval(() => {}, 1e6);
