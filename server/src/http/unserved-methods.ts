// CONNECT (a proxy's method) is the one request Node hands to neither Fastify nor anyone
// else: without a listener it closes the socket without a word. Here it gets 405
// method_not_allowed as problem+json, and the connection closes. (A protocol upgrade, such as
// WebSocket, is an ordinary request while nobody listens for upgrades: it is answered as one.)
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { writeRawProblem } from './client-error';
import { problem } from './problem';

export function answerUnservedMethods(server: Server) {
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    writeRawProblem(socket as Socket, problem('method_not_allowed', 'CONNECT is not served here: this is an API, not a proxy'));
    (socket as Socket).destroySoon();
  });
}
