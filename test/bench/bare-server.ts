// The baseline for the overhead benchmark: a bare Fastify route serving the same JSON as
// GET /v1/presence/me, with no auth, hooks or schema.
import Fastify from 'fastify';

const body = JSON.parse(process.env.BARE_BODY ?? '{}');
const app = Fastify();
app.get('/v1/presence/me', async () => body);
await app.listen({ host: '127.0.0.1', port: 0 });
const a = app.server.address();
process.stdout.write(`Presence listening on http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}\n`);
