// Open connections per client address. Past the server-wide cap (PRESENCE_MAX_CONNECTIONS)
// Node drops new connections for everyone, so one address holding idle or half-sent requests
// could make health checks and every other client unreachable. Each address (an IPv6 /64
// counts as one, as in client-address.ts) may hold `perAddress` connections; one more is
// answered 429 at once, as problem+json on the raw socket, and closed — before any of its
// bytes are read. Trusted proxies carry many clients and are not counted.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { PresenceError } from '@presence/core';
import { clientAddress } from './client-address';
import { writeRawProblem } from './client-error';

export function capConnectionsPerAddress(server: Server, perAddress: number, exempt: (peer: string | undefined) => boolean) {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress;
    if (peer === undefined || exempt(peer)) return;
    const address = clientAddress(peer);
    const held = open.get(address) ?? 0;
    if (held >= perAddress) {
      const refusal = new PresenceError('rate_limited', `this address holds ${perAddress} open connections; close one or retry later`, {
        extra: { limit: 'connections_per_address' },
        retryAfter: 1,
      });
      // Nothing it sends is read (so no request runs); it goes when the peer closes, or soon.
      socket.pause();
      writeRawProblem(socket, refusal.toProblem(), { 'Retry-After': '1' });
      socket.setTimeout(5_000, () => socket.destroy());
      return;
    }
    open.set(address, held + 1);
    socket.once('close', () => {
      const n = (open.get(address) ?? 1) - 1;
      if (n <= 0) open.delete(address);
      else open.set(address, n);
    });
  });
}
