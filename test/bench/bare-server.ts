// The baselines for the overhead benchmark: a bare Fastify route serving the same JSON as
// GET /v1/presence/me, with no auth, hooks or schema; with BARE_LOGGING=1, the same route
// logged as the server logs by default (productionLogging: info, one JSON line per request on
// stdout, written in batches), which is the most any logged route can do on this machine; with
// BARE_BUSY_US=n, the bare route spinning n µs per request (how much a few µs of work cost in
// throughput here).
import { productionLogging } from '@presence/server';
import Fastify from 'fastify';

const body = JSON.parse(process.env.BARE_BODY ?? '{}');
const logging = process.env.BARE_LOGGING === '1' ? productionLogging('info', 'json') : null;
const app = Fastify(logging ? logging.options : {});
const busyMs = Number(process.env.BARE_BUSY_US ?? 0) / 1000;
app.get('/v1/presence/me', async () => {
  if (busyMs > 0) for (const until = performance.now() + busyMs; performance.now() < until; );
  return body;
});
await app.listen({ host: '127.0.0.1', port: 0 });
const a = app.server.address();
// stderr: with logging on, stdout is the log.
process.stderr.write(`Presence listening on http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}\n`);
