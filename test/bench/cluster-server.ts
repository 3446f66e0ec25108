// A server process for the cluster benchmarks: the real server from the environment, without
// a chain (events, keys and memory need none), so three of them and PostgreSQL fit on a
// small machine without three devnets. Prints the ready line spawnServer waits for.
import { loadConfig, startServer } from '@presence/server';

const server = await startServer({ config: loadConfig(), chain: false, logger: false, maintenanceMs: 0, standingMs: 0 });
process.stdout.write(`Presence listening on ${server.url}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
