import { mkdtempSync } from 'node:fs';
import { loadConfig, startServer } from '@presence/server';

const s = await startServer({
  config: loadConfig({ PRESENCE_DATA_DIR: mkdtempSync('/tmp/pc-'), PRESENCE_PORT: '18787' }),
  logger: false,
  maintenanceMs: 0,
});
console.log(JSON.stringify({ url: s.url, ...s.bootstrap }));
setInterval(() => s.core.events.emit('default', 'live', 'memory', { key: 'topic:tick', tier: 'fading' }), 300);
