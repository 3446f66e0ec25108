// The production logger configuration, in one place so the tests that check what reaches a
// log line run this one, not a copy. No stack traces and no secrets in any log line:
// - errors are logged as their type, message and code, with their causes, never their stack (a
//   stack names our files and can carry values from the frames that threw), and every message
//   is redacted (core's errors/redact-message.ts: a URL keeps only its scheme, host and port; keys and tokens
//   are masked);
// - request lines carry method, the route's pattern, host and peer address only, never headers,
//   so Authorization never reaches the log (there is nothing to redact);
// - a path or query may hold a link code or a key however it is spelled, so no line carries
//   either: a matched request is named by its route's pattern (`/v1/links/:code/redeem`), an
//   unmatched one by its path up to its first unknown segment (http/route-table.ts).
// Two formats: JSON lines (pino's own, for machines) and, on a terminal, short readable lines
// rendered from the same serialized JSON, so both carry exactly the same fields. Either way a
// request is one line, written when it completes (method, URL, status, time); Fastify's
// "incoming request" line doubled the log for nothing a completed line lacks. Without a
// stream of the caller's, lines go to stdout asynchronously (log-destination.ts).
import { hostname } from 'node:os';
import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify';
import { errorSummary } from './http/error-summary';
import { REQUEST_ID_LOG_LABEL } from './http/request-id';
import { loggedUrl } from './http/route-table';
import { type LogStream, stdoutDestination } from './log-destination';

// Where log lines go (pino writes one JSON line per call).
export type { LogStream } from './log-destination';

export type LogFormat = 'pretty' | 'json';

/** The URL a log line shows: the app's own reading (route-table.ts), or, on an app without it, the pattern alone. */
const urlFor = (request: FastifyRequest) => (request as { loggedUrl?: string }).loggedUrl ?? loggedUrl(request);

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
        url: urlFor(req),
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
        `"req":{"method":${JSON.stringify(request.method)},"url":${JSON.stringify(urlFor(request))},` +
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
  err?: ErrorFacts & { cause?: ErrorFacts[] };
};

/** What error-summary.ts says of an error (a 5xx line says `detail` where others say `message`). */
type ErrorFacts = { type?: string; message?: string; detail?: string; code?: string | number; status?: number };

const factsText = (e: ErrorFacts) => {
  const code = e.code ?? e.status;
  return [e.type, e.message ?? e.detail].filter(Boolean).join(': ') + (code === undefined ? '' : ` [${code}]`);
};

/** An error as `type: message [code]`, then each cause after `<-`: what the JSON line says, on one line. */
const errorText = (err: ErrorFacts & { cause?: ErrorFacts[] }) =>
  [err, ...(Array.isArray(err.cause) ? err.cause : [])].map(factsText).join(' <- ');

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
      if (o.err) text += ` (${errorText(o.err)})`;
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
