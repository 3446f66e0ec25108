// What the app knows of its own routes, gathered as they are registered: which patterns a
// path matches (for the one 405 answer, with `Allow`) and what of a URL a log line may show.
// A log line names a request by its route's pattern (`/v1/links/:code/redeem`), never by the
// path or query it was sent to: those may hold a link code or a key however they are spelled
// (`/v1/keys/<secret>`, `/v1/health?<code>`, `/v1/links%252F<code>`). A path no route has is
// shown up to its first segment no route names (`/v1/keys/<secret>` → `/v1/keys/[unknown]`).
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Shown in place of everything from the first segment no route names. */
export const UNKNOWN_SEGMENT = '[unknown]';

type Pattern = { pattern: string; test: RegExp; methods: Set<string> };

export type RouteTable = {
  /** The patterns matching a raw path (no query), and their methods. */
  match(path: string): { pattern: string; methods: string[] } | null;
  /** What a log line says of an unmatched path: its known literal segments, then `[unknown]`. */
  knownPrefix(path: string): string;
};

const pathOf = (url: string) => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `/v1/keys/:id` → a whole-path test where a parameter is one non-empty segment and `*` any rest. */
const compile = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split('/')
      .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : escapeRegex(seg)))
      .join('/')}$`,
  );

export function createRouteTable(): RouteTable & { add(method: string | string[], pattern: string): void } {
  const patterns = new Map<string, Pattern>();
  /** Every literal prefix some route starts with (`/v1`, `/v1/keys`, …). */
  const prefixes = new Set<string>();
  return {
    add(method, pattern) {
      let p = patterns.get(pattern);
      if (!p) {
        p = { pattern, test: compile(pattern), methods: new Set() };
        patterns.set(pattern, p);
        let prefix = '';
        for (const seg of pattern.split('/').slice(1)) {
          if (seg.startsWith(':') || seg.includes('*') || seg === '') break;
          prefix += `/${seg}`;
          prefixes.add(prefix);
        }
      }
      for (const m of Array.isArray(method) ? method : [method]) p.methods.add(m.toUpperCase());
    },
    match(path) {
      // Wildcards (CORS preflight's `*`, the docs' static files) would match anything: not a route a path "has".
      const hits = [...patterns.values()].filter((p) => !p.pattern.includes('*') && p.test.test(path));
      if (hits.length === 0) return null;
      // The most literal pattern names it (`/v1/memory/search` before `/v1/memory/:key`).
      const params = (p: Pattern) => p.pattern.split(':').length;
      const best = hits.reduce((a, b) => (params(b) < params(a) ? b : a));
      return { pattern: best.pattern, methods: [...new Set(hits.flatMap((p) => [...p.methods]))].sort() };
    },
    knownPrefix(url) {
      const segs = pathOf(url).split('/').slice(1);
      let prefix = '';
      for (const seg of segs) {
        if (!prefixes.has(`${prefix}/${seg}`)) return `${prefix}/${UNKNOWN_SEGMENT}`;
        prefix += `/${seg}`;
      }
      return prefix || `/${UNKNOWN_SEGMENT}`;
    },
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's URL as a log line may show it (route-table.ts). */
    readonly loggedUrl: string;
  }
}

/** Gathers the app's routes (register before any route) and gives every request its `loggedUrl`. */
export function registerRouteTable(app: FastifyInstance): RouteTable {
  const table = createRouteTable();
  app.addHook('onRoute', (route) => table.add(route.method, route.url));
  app.decorateRequest('loggedUrl', {
    getter(this: FastifyRequest) {
      return loggedUrl(this, table);
    },
  });
  return table;
}

/** A matched route's pattern; else the pattern of a route the path has for other methods; else the known prefix. */
export function loggedUrl(request: FastifyRequest, table?: RouteTable): string {
  const pattern = request.routeOptions?.url;
  if (pattern) return pattern;
  if (!table) return `/${UNKNOWN_SEGMENT}`;
  return table.match(pathOf(request.url))?.pattern ?? table.knownPrefix(request.url);
}
