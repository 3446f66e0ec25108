// PresenceError: the typed failure core raises. The server maps it to problem+json in one
// place; nothing else decides statuses. `extra` carries documented extension members
// (e.g. `rule` on policy_block) and must never hold secrets.
import { type Problem, type ProblemType, problemCatalogue } from '@presence/protocol';

// The body's shape is the protocol's Problem schema; re-exported for core's own modules.
export type { Problem };

export type ProblemExtras = Record<string, string | number | boolean | null | string[]>;

export class PresenceError extends Error {
  override readonly name: string = 'PresenceError';
  readonly type: ProblemType;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly extra: ProblemExtras;
  /** Seconds a client should wait, for rate_limited / unavailable answers. */
  readonly retryAfter: number | undefined;

  constructor(type: ProblemType, detail: string, options: { extra?: ProblemExtras; retryAfter?: number; cause?: unknown } = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.type = type;
    this.status = problemCatalogue[type].status;
    this.title = problemCatalogue[type].title;
    this.detail = detail;
    this.extra = options.extra ?? {};
    this.retryAfter = options.retryAfter;
  }

  toProblem(): Problem {
    return { type: this.type, title: this.title, status: this.status, detail: this.detail, ...this.extra };
  }
}

export const isPresenceError = (e: unknown): e is PresenceError => e instanceof PresenceError;

/** Shorthands keep call sites readable: `throw notFound('memory key pair:X is not stored')`. */
export const invalidRequest = (detail: string, extra?: ProblemExtras) =>
  new PresenceError('invalid_request', detail, extra ? { extra } : {});
export const notFound = (detail: string) => new PresenceError('not_found', detail);
