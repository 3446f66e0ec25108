// Every failure becomes one problem+json answer (http/problem.ts): thrown errors, validation,
// and what no route serves — a path a route has asked with a method it lacks is 405 naming
// the methods it has, anything else 404. Wrapped with fastify-plugin: the handlers are the
// root's, so every route and the not-found answer share them.
import { PresenceError } from '@presence/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { errorHandler } from '../http/problem';
import { type RouteTable, registerRouteTable } from '../http/route-table';

/** The 405 or 404 for a request no route serves (setting Allow for a 405). */
function unrouted(routeTable: RouteTable, req: FastifyRequest, reply: FastifyReply): PresenceError {
  const route = routeTable.match(req.url.split('?', 1)[0] as string);
  if (route) {
    reply.header('allow', route.methods.join(', '));
    return new PresenceError('method_not_allowed', `${req.method} is not served on ${route.pattern}`);
  }
  // Never the URL: it may carry a credential (a link code sent to the wrong path).
  return new PresenceError('not_found', `no such route for ${req.method} (the routes are listed in the OpenAPI document)`);
}

async function problems(app: FastifyInstance) {
  app.setErrorHandler(errorHandler);
  // Before any route: the table hears of each as it is added.
  const routeTable = registerRouteTable(app);
  // Answered before the body is read: Fastify parses a body even for the not-found handler,
  // so a request no route serves would otherwise be judged on its body first (malformed JSON
  // was 400, a QUERY without Content-Type 400) instead of 404/405.
  app.addHook('preParsing', (req, reply, payload, done) => {
    if (req.is404) return done(unrouted(routeTable, req, reply));
    done(null, payload);
  });
  app.setNotFoundHandler((req, reply) => errorHandler(unrouted(routeTable, req, reply), req, reply));
}

export const problemsPlugin = fp(problems, { name: 'presence-problems' });
