// Idempotency-Key on every keyed write (http/idempotency.ts): claim, record, replay. Wrapped
// with fastify-plugin: its onRoute hook must see every route the app adds after it (reads
// get no hooks and pay nothing); registered after auth, whose principal it claims under.
import type { Core } from '@presence/core';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { registerIdempotency } from '../http/idempotency';

async function idempotency(app: FastifyInstance, { core }: { core: Core }) {
  registerIdempotency(app, core);
}

export const idempotencyPlugin = fp(idempotency, { name: 'presence-idempotency', dependencies: ['presence-auth'] });
