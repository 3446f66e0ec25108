// Authentication, per-key rate limits and scope checks for every route (http/auth.ts), with
// the failed-authentication budget per client address. Wrapped with fastify-plugin: its
// onRequest hook and request decorators are the root's, so every route and the not-found
// answer are covered.
import type { Core } from '@presence/core';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { registerAuth } from '../http/auth';

export type AuthOptions = { core: Core; authFailures: { limit: number; windowMs: number } };

async function auth(app: FastifyInstance, { core, authFailures }: AuthOptions) {
  registerAuth(app, core, core.failureBudgetFor('auth-failures', authFailures));
}

export const authPlugin = fp(auth, { name: 'presence-auth' });
