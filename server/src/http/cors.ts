// CORS for browser clients on the origins listed in PRESENCE_CORS_ORIGINS (none by default:
// then no CORS header is ever sent and browsers keep pages on other origins out). Preflights
// are answered for the request headers the API reads; answers expose the headers a client
// needs to read (request id, rate limits, Retry-After, mode, replay marker).
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

export const CORS_ALLOWED_HEADERS = ['Authorization', 'Idempotency-Key', 'Last-Event-ID', 'Content-Type', 'X-Request-Id'];
export const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'Presence-Mode',
  'Idempotent-Replayed',
];

export async function registerCors(app: FastifyInstance, origins: readonly string[]) {
  if (origins.length === 0) return;
  await app.register(cors, {
    origin: [...origins],
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    // Keys travel in Authorization, never cookies: no credentialed requests.
    credentials: false,
    maxAge: 600,
  });
}
