// The production logger configuration, in one place so the tests that check what reaches a
// log line run this one, not a copy. No stack traces and no secrets in any log line:
// - errors are logged as their type, message and code, never their stack (a stack names our
//   files and can carry values from the frames that threw);
// - request lines carry method, redacted URL, host and peer address only, never headers, so
//   Authorization never reaches the log (there is nothing to redact);
// - link codes are one-time credentials that travel in the redeem URL: logged URLs show
//   where the request went, never which code (anything after /links/ is cut).
// Two formats: JSON lines (pino's own, for machines) and, on a terminal, short readable lines
// rendered from the same serialized JSON, so both carry exactly the same fields. Either way a
// request is one line, written when it completes (method, URL, status, time); Fastify's
// "incoming request" line doubled the log for nothing a completed line lacks. Without a
// stream of the caller's, lines go to stdout asynchronously (log-destination.ts).
import { hostname } from 'node:os';
import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify';
import { errorSummary } from './http/error-summary';
import { REQUEST_ID_LOG_LABEL } from './http/request-id';
import { stdoutDestination } from './log-destination';

/** Where log lines go (pino writes one JSON line per call). */
export type LogStream = { write(line: string): void };

export type LogFormat = 'pretty' | 'json';

/** `/links/`, `/enroll/` or `/approve/` in any case, as the router would read it (escapes decoded, so %2F is a slash too). */
const UNDER_LINKS = /\/(links|enroll|approve)\//i;
const ESCAPE = /%([0-9a-f]{2})/gi;

/**
 * A URL fit for a log line. Whatever comes after `/links/` may be a link code (the redeem
 * route's, or one sent to a path that does not exist: `/v1/links/CODE`, `/v1/links/CODE%2Fredeem`),
 * and after `/enroll/` or `/approve/` a passkey link's token,
 * so all of it, query included, is replaced. Escapes are decoded first, byte by byte and
 * tolerating malformed ones, so `/v1/link%73/CODE` is caught as the router would route it.
 */
export function redactUrl(url: string): string {
  const plain = url.includes('%') ? url.replace(ESCAPE, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))) : url;
  const at = UNDER_LINKS.exec(plain);
  return at ? `${plain.slice(0, at.index)}/${(at[1] as string).toLowerCase()}/[redacted]` : url;
}

export function productionLogger(
  level: string,
  stream?: LogStream,
  bindings?: Record<string, string>,
): NonNullable<FastifyServerOptions['logger']> {
  return {
    level,
    // pino's own base (pid, hostname) plus what names this server among many. A spread: pino lays
    // these options over its defaults, so an explicit `base: undefined` would drop pid and hostname.
    ...(bindings ? { base: { pid: process.pid, hostname: hostname(), ...bindings } } : {}),
    stream,
    serializers: {
      req: (req: FastifyRequest) => ({
        method: req.method,
        url: redactUrl(req.url),
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
      // Fastify's typings expect pino's own error shape (stack included); leaving it out is the point.
      err: errorSummary as never,
    },
  };
}

/**
 * Request logging with one line per request (method, URL, status, time) instead of Fastify's
 * two ("incoming request", then "request completed" without the URL). A completed request's
 * line is the one written for every request, so it is put together here as the JSON pino
 * would write (same fields, same order: level, time, the base bindings, the request id, req,
 * res, responseTime, msg) and handed to the stream directly: through the child logger and its
 * serializers it was about a tenth of a keyed request's time. Errors go through pino.
 */
class OneLinePerRequest extends LogController {
  constructor(
    private readonly sink: LogStream,
    /** The base bindings as JSON members (`"pid":1,"hostname":"h",…`). */
    private readonly base: string,
  ) {
    super({ requestIdLogLabel: REQUEST_ID_LOG_LABEL });
  }
  override incomingRequest() {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    if (this.isLogDisabled(request)) return;
    if (error) {
      reply.log.error({ req: request, res: reply, responseTime: reply.elapsedTime, err: error }, 'request errored');
      return;
    }
    // The request's own logger's level (a route may set its own logLevel).
    if (!(reply.log as unknown as { isLevelEnabled(l: string): boolean }).isLevelEnabled('info')) return;
    const port = request.socket?.remotePort;
    this.sink.write(
      `{"level":30,"time":${Date.now()},${this.base},"${REQUEST_ID_LOG_LABEL}":${JSON.stringify(request.id)},` +
        `"req":{"method":${JSON.stringify(request.method)},"url":${JSON.stringify(redactUrl(request.url))},` +
        `"host":${JSON.stringify(request.host)},"remoteAddress":${JSON.stringify(request.ip)}` +
        `${port === undefined ? '' : `,"remotePort":${port}`}},"res":{"statusCode":${reply.statusCode}},` +
        `"responseTime":${reply.elapsedTime},"msg":"request completed"}\n`,
    );
  }
}

/** The fields of a JSON log line the readable form shows (what the serializers above let through). */
type LogRecord = {
  level?: number;
  time?: number;
  msg?: unknown;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { type?: string; message?: string; detail?: string };
};

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** Renders pino's JSON lines as short readable ones on `out`. */
export function prettyLines(out: LogStream): LogStream {
  return {
    write(json) {
      let o: LogRecord;
      try {
        o = JSON.parse(json);
      } catch {
        return out.write(json);
      }
      // Fastify announces the address itself; `npm start` prints its own ready line.
      if (typeof o.msg === 'string' && o.msg.startsWith('Server listening at ')) return;
      const level = LEVELS[o.level ?? 30] ?? String(o.level);
      const time = new Date(typeof o.time === 'number' ? o.time : Date.now()).toTimeString().slice(0, 8);
      let text =
        o.req && o.res ? `${o.req.method} ${o.req.url} ${o.res.statusCode} ${Math.round(o.responseTime ?? 0)} ms` : String(o.msg ?? '');
      if (o.err) text += ` (${[o.err.type, o.err.message ?? o.err.detail].filter(Boolean).join(': ')})`;
      out.write(`${time} ${level === 'info' ? '' : `${level} `}${text}\n`);
    },
  };
}

export type ProductionLogging = {
  options: Pick<FastifyServerOptions, 'logger' | 'logController'>;
  /** Writes out what is still buffered for stdout; the server's last cleanup. */
  close(): Promise<void>;
};

/** The Fastify logging options for a format; JSON goes to `stream` (default: stdout, asynchronously) as it is. */
export function productionLogging(
  level: string,
  format: LogFormat,
  stream?: LogStream,
  bindings?: Record<string, string>,
): ProductionLogging {
  const stdout = stream ? null : stdoutDestination();
  const out: LogStream = stream ?? (stdout as LogStream);
  const sink = format === 'json' ? out : prettyLines(out);
  const base = JSON.stringify({ pid: process.pid, hostname: hostname(), ...bindings }).slice(1, -1);
  const logController = new OneLinePerRequest(sink, base);
  return {
    options: { logger: productionLogger(level, sink, bindings), logController },
    close: async () => stdout?.close(),
  };
}
