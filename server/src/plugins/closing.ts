// How the app closes without cutting anyone off. A request that still reaches a closing
// server (pipelined, or on a keep-alive connection busy when closing began) is shed before
// any work: 503 `unavailable`, and Fastify adds `Connection: close`, so the client's retry
// goes to a server that is staying up. Node closes idle keep-alive connections once, when
// closing starts; one whose in-flight request finishes later would idle until its keep-alive
// timeout and hold the close up, so each such connection is closed as its answer finishes.
// (Event streams never end by themselves: the streams plugin ends them in its own preClose.)
import { PresenceError } from '@presence/core';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

async function closing(app: FastifyInstance) {
  let closing = false;
  // onResponse runs when the response has finished, as a 'finish' listener would, without
  // adding one to every response. (Callback hooks: an async one costs every request a promise.)
  app.addHook('onResponse', (_request, _reply, done) => {
    if (closing) setImmediate(() => app.server.closeIdleConnections());
    done();
  });
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (_request, _reply, done) => {
    if (closing) done(new PresenceError('unavailable', 'this server is shutting down; retry the request', { retryAfter: 1 }));
    else done();
  });
}

export const closingPlugin = fp(closing, { name: 'presence-closing' });
