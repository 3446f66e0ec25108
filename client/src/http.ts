// The one place requests are made: URL and headers, an Idempotency-Key on every write,
// a time limit per attempt, retries with backoff, and non-2xx → PresenceApiError.
// Resources call `json()`; streams call `open()` and own the body afterwards.
// Web APIs only (fetch, AbortController, URL): this file runs in browser extensions too.
import type { z } from 'zod';
import { PresenceClientError, PresenceNetworkError, PresenceProtocolError } from './errors';
import { newIdempotencyKey } from './idempotency';
import { problemError } from './problem';
import { parseRetryAfter, type RetryPolicy, retryDelay } from './retry';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Query = Record<string, string | number | boolean | undefined>;

export type HttpRequest = {
  method: HttpMethod;
  /** Absolute API path, e.g. `/v1/memory`. */
  path: string;
  query?: Query;
  /** Sent as JSON when present. */
  body?: unknown;
  headers?: Record<string, string>;
  accept?: string;
};

/** Per-call options every SDK function takes as its last argument. */
export type RequestOptions = {
  signal?: AbortSignal;
  /** For writes: your own key (e.g. one saved before a crash) instead of a fresh random one. */
  idempotencyKey?: string;
  /** Time limit per attempt; for streams, until the answer's headers arrive. */
  timeoutMs?: number;
  /** Extra attempts for this call; 0 turns retries off. */
  retries?: number;
};

/**
 * An SDK function whose parameters may all be left out: `(http, params?, options?)`, the http
 * client first as viem's actions take theirs.
 */
export type OptionalParamsAction<P, R> = (http: Http, params?: P, options?: RequestOptions) => Promise<R>;

/** What each attempt got back, for logging and for reading Presence-Mode / replay flags. */
export type ResponseInfo = {
  method: HttpMethod;
  path: string;
  status: number;
  /** 0 for the first try. */
  attempt: number;
  /** Presence-Mode: live or test, on every keyed answer. */
  mode: string | null;
  /** True when the server replayed a stored answer for this Idempotency-Key. */
  replayed: boolean;
  idempotencyKey: string | undefined;
  headers: Headers;
};

export type HttpConfig = {
  baseUrl: string;
  token: string | undefined;
  /** With a surface token: the linked key every request runs as (Presence-Acting-For). */
  actingFor?: string | undefined;
  fetch: typeof fetch;
  retry: RetryPolicy;
  timeoutMs: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  /** Characters one streamed event may hold; see PresenceClientOptions. */
  maxEventSize: number;
  onResponse?: (info: ResponseInfo) => void;
};

/** An answer whose headers arrived with a 2xx; the caller reads the body and calls `release()`. */
export type OpenedResponse = {
  response: Response;
  /** Aborts the underlying request (and so the body). */
  cancel(reason?: unknown): void;
  /** Detaches from the caller's signal; call once the body is done with. */
  release(): void;
};

export type Http = ReturnType<typeof createHttp>;

const WRITES = new Set<HttpMethod>(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Accepts `http://host:port`, with or without a trailing slash or `/v1`: paths carry `/v1` themselves. */
export function normaliseBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

function reasonOf(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (e instanceof Error ? e.message : String(e));
}

export function createHttp(config: HttpConfig) {
  const base = normaliseBaseUrl(config.baseUrl);
  // Fail at construction, not on the first call, when the address cannot work at all.
  let origin: string;
  try {
    const url = new URL(base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    origin = url.origin;
  } catch {
    throw new TypeError(`baseUrl ${JSON.stringify(config.baseUrl)} is not an http(s) address such as http://127.0.0.1:8787`);
  }

  function urlOf(path: string, query: Query | undefined): string {
    const url = new URL(base + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }

  /** One attempt, resolving once a 2xx's headers are in; any failure becomes a typed error. */
  async function attemptOnce(req: HttpRequest, options: RequestOptions, idempotencyKey: string | undefined, attempt: number) {
    const caller = options.signal;
    if (caller?.aborted) throw caller.reason;
    const controller = new AbortController();
    const onAbort = () => controller.abort(caller?.reason);
    caller?.addEventListener('abort', onAbort, { once: true });
    const timeoutMs = options.timeoutMs ?? config.timeoutMs;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    const stopTimer = () => clearTimeout(timer);
    const release = () => {
      stopTimer();
      caller?.removeEventListener('abort', onAbort);
    };
    const fail = (e: unknown, phase: 'connect' | 'body'): never => {
      release();
      if (caller?.aborted) throw caller.reason;
      if (e instanceof PresenceClientError) throw e;
      const what = `${req.method} ${req.path}`;
      if (timedOut) throw new PresenceNetworkError('timeout', `${what}: no answer from ${origin} within ${timeoutMs} ms`, { cause: e });
      if (phase === 'body')
        throw new PresenceNetworkError('interrupted', `${what}: the answer from ${origin} broke off (${reasonOf(e)})`, { cause: e });
      throw new PresenceNetworkError('network', `${what}: could not reach ${origin} (${reasonOf(e)})`, { cause: e });
    };

    const headers: Record<string, string> = { accept: req.accept ?? 'application/json', ...req.headers };
    if (config.token) headers.authorization = `Bearer ${config.token}`;
    if (config.actingFor) headers['presence-acting-for'] = config.actingFor;
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }

    let response: Response;
    try {
      response = await config.fetch(urlOf(req.path, req.query), {
        method: req.method,
        headers,
        body,
        signal: controller.signal,
      });
    } catch (e) {
      return fail(e, 'connect');
    }
    config.onResponse?.({
      method: req.method,
      path: req.path,
      status: response.status,
      attempt,
      mode: response.headers.get('presence-mode'),
      replayed: response.headers.get('idempotent-replayed') === 'true',
      idempotencyKey,
      headers: response.headers,
    });
    const readText = async (): Promise<string> => {
      try {
        const text = await response.text();
        release();
        return text;
      } catch (e) {
        return fail(e, 'body');
      }
    };
    if (!response.ok) {
      const text = await readText();
      throw problemError(response.status, response.statusText, text, parseRetryAfter(response.headers.get('retry-after')));
    }
    return { response, readText, stopTimer, release, cancel: (reason?: unknown) => controller.abort(reason) };
  }

  /** Runs attempts until one succeeds (as judged by `consume`) or the retry rule says stop. */
  async function withRetries<T>(
    req: HttpRequest,
    options: RequestOptions,
    consume: (a: Awaited<ReturnType<typeof attemptOnce>>) => Promise<T>,
  ): Promise<T> {
    const idempotencyKey = WRITES.has(req.method) ? (options.idempotencyKey ?? newIdempotencyKey()) : undefined;
    const policy = options.retries === undefined ? config.retry : { ...config.retry, retries: options.retries };
    for (let attempt = 0; ; attempt++) {
      try {
        return await consume(await attemptOnce(req, options, idempotencyKey, attempt));
      } catch (err) {
        if (options.signal?.aborted) throw options.signal.reason;
        const delay = retryDelay(err, attempt, policy, config.random);
        if (delay === null) throw err;
        await config.sleep(delay, options.signal);
      }
    }
  }

  return {
    baseUrl: base,
    /** Shared with long-lived streams so their reconnect waits are injectable too. */
    sleep: config.sleep,
    random: config.random,
    maxEventSize: config.maxEventSize,

    /** A JSON call whose 2xx body is parsed by `schema` (extra fields are dropped, missing ones are an error). */
    json<S extends z.ZodType>(schema: S, req: HttpRequest, options: RequestOptions = {}): Promise<z.output<S>> {
      return withRetries(req, options, async (a) => {
        const text = await a.readText();
        let value: unknown;
        try {
          value = text === '' ? undefined : JSON.parse(text);
        } catch (e) {
          throw new PresenceProtocolError(`${req.method} ${req.path}: the answer is not JSON`, a.response.status, { cause: e });
        }
        const parsed = schema.safeParse(value);
        if (!parsed.success) {
          const issues = parsed.error.issues
            .slice(0, 3)
            .map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`)
            .join('; ');
          throw new PresenceProtocolError(`${req.method} ${req.path}: unexpected answer (${issues})`, a.response.status, {
            cause: parsed.error,
          });
        }
        return parsed.data;
      });
    },

    /**
     * Opens a streaming call. Retries (with the same Idempotency-Key) only until a 2xx's
     * headers arrive; after that the time limit is off and the caller owns the body.
     */
    open(req: HttpRequest, options: RequestOptions = {}): Promise<OpenedResponse> {
      return withRetries(req, options, async (a) => {
        a.stopTimer();
        return { response: a.response, cancel: a.cancel, release: a.release };
      });
    },
  };
}
