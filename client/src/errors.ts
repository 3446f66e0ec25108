// What the SDK throws. Three classes that mean different things (as grammY separates
// them): the server answered with a problem (PresenceApiError), no usable answer arrived
// (PresenceNetworkError), or an answer arrived that this SDK cannot read
// (PresenceProtocolError). All share PresenceClientError so callers can catch "anything
// from us"; the name differs from core's PresenceError, which is a different class.
import type { Problem } from '@presence/protocol';

export abstract class PresenceClientError extends Error {
  abstract readonly kind: 'api' | 'network' | 'protocol';
}

/** The server answered with an application/problem+json body (or a non-2xx we mapped to one). */
export class PresenceApiError extends PresenceClientError {
  override readonly name = 'PresenceApiError';
  readonly kind = 'api' as const;
  /** Stable string to branch on: auth, scope, not_found, policy_block, rate_limited … */
  readonly type: string;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  /** Seconds the server asked us to wait (Retry-After), when it said so. */
  readonly retryAfter: number | undefined;
  /** The server's id of the request that failed (its X-Request-Id): quote it when reporting a fault. */
  readonly requestId: string | undefined;
  /** The whole body, extension members included (e.g. `rule` on policy_block). */
  readonly problem: Problem;

  constructor(problem: Problem, retryAfter?: number) {
    super(`${problem.type}: ${problem.detail}`);
    this.type = problem.type;
    this.status = problem.status;
    this.title = problem.title;
    this.detail = problem.detail;
    this.retryAfter = retryAfter;
    this.requestId = problem.request_id;
    this.problem = problem;
  }
}

export type NetworkErrorCode =
  /** The request never got an answer: refused, reset, DNS … */
  | 'network'
  /** No answer (or, on a stream, no bytes) within the time limit. */
  | 'timeout'
  /** An answer started but its body broke off. */
  | 'interrupted';

export class PresenceNetworkError extends PresenceClientError {
  override readonly name = 'PresenceNetworkError';
  readonly kind = 'network' as const;

  constructor(
    readonly code: NetworkErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A 2xx whose body does not match the schema: a server/SDK version mismatch, not retryable. */
export class PresenceProtocolError extends PresenceClientError {
  override readonly name: string = 'PresenceProtocolError';
  readonly kind = 'protocol' as const;

  constructor(
    message: string,
    readonly status: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * One event of a stream (events, or a streamed reply) was larger than the client's
 * `maxEventSize`: the SDK stopped reading and closed the stream rather than buffer it.
 * Not retried: the same event would come again.
 */
export class PresenceEventTooLargeError extends PresenceProtocolError {
  override readonly name: string = 'PresenceEventTooLargeError';
  /** The limit it went past, in characters. */
  readonly limit: number;

  constructor(message: string, limit: number, options?: { cause?: unknown }) {
    super(message, 200, options);
    this.limit = limit;
  }
}

export const isPresenceClientError = (e: unknown): e is PresenceClientError => e instanceof PresenceClientError;

/** @deprecated Renamed to PresenceClientError (core has a PresenceError of its own); this alias goes in a later release. */
export const PresenceError = PresenceClientError;
/** @deprecated Renamed to PresenceClientError. */
export type PresenceError = PresenceClientError;
/** @deprecated Renamed to isPresenceClientError. */
export const isPresenceError = isPresenceClientError;
export const isApiError = (e: unknown, type?: string): e is PresenceApiError =>
  e instanceof PresenceApiError && (type === undefined || e.type === type);
