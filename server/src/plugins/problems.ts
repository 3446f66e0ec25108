// Every failure becomes one problem+json answer (http/problem.ts): thrown errors, validation,
// and what no route serves — a path a route has asked with a method it lacks is 405 naming
// the methods it has, anything else 404. Wrapped with fastify-plugin: the handlers are the
// root's, so every route and the not-found answer share them.
import { PresenceError } from '@presence/core';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { errorHandler } from '../http/problem';
import { registerRouteTable } from '../http/route-table';

async function problems(app: FastifyInstance) {
  app.setErrorHandler(errorHandler);
  // Before any route: the table hears of each as it is added.
  const routeTable = registerRouteTable(app);
  app.setNotFoundHandler((req, reply) => {
    const route = routeTable.match(req.url.split('?', 1)[0] as string);
    if (route) {
      reply.header('allow', route.methods.join(', '));
      return errorHandler(new PresenceError('method_not_allowed', `${req.method} is not served on ${route.pattern}`), req, reply);
    }
    // Never the URL: it may carry a credential (a link code sent to the wrong path).
    return errorHandler(
      new PresenceError('not_found', `no such route for ${req.method} (the routes are listed in the OpenAPI document)`),
      req,
      reply,
    );
  });
}

export const problemsPlugin = fp(problems, { name: 'presence-problems' });
