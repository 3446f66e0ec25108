// How the app closes without cutting anyone off. A request that still reaches a closing
// server (pipelined, or on a keep-alive connection busy when closing began) is shed before
// any work: 503 `unavailable`, and Fastify adds `Connection: close`, so the client's retry
// goes to a server that is staying up. Node closes idle keep-alive connections once, when
// closing starts; one whose in-flight request finishes later would idle until its keep-alive
// timeout and hold the close up, so each such connection is closed as its answer finishes.
// A connection that has not sent a byte yet (a browser's preconnect, a client's spare socket,
// a probe that only connects) is not idle to Node, so it would hold the close until the headers
// timeout, past serve.ts's 10 s deadline, and the deadline's exit skips the rest of the
// shutdown: closing ends those too. One that sent part of a request is left to finish it.
// (Event streams never end by themselves: the streams plugin ends them in its own preClose.)
import type { Socket } from 'node:net';
import { PresenceError } from '@presence/core';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

async function closing(app: FastifyInstance) {
  let closing = false;
  const connections = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  // onResponse runs when the response has finished, as a 'finish' listener would, without
  // adding one to every response. (Callback hooks: an async one costs every request a promise.)
  app.addHook('onResponse', (_request, _reply, done) => {
    if (closing) setImmediate(() => app.server.closeIdleConnections());
    done();
  });
  app.addHook('preClose', async () => {
    closing = true;
    for (const socket of connections) if (socket.bytesRead === 0) socket.destroy();
  });
  app.addHook('onRequest', (_request, _reply, done) => {
    if (closing) done(new PresenceError('unavailable', 'this server is shutting down; retry the request', { retryAfter: 1 }));
    else done();
  });
}

export const closingPlugin = fp(closing, { name: 'presence-closing' });
