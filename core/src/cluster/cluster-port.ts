// What core needs from the other servers of a deployment when several share one store
// (PostgreSQL): a wake-up when any server appended an event, and rate-limit windows that
// count every server's requests. The PostgreSQL adapter implements it (LISTEN/NOTIFY and a
// table, see cluster/postgres/cluster.ts); an embedded install passes none and core keeps its
// in-process paths. Core never imports a driver for this.
import type { RateDecision } from '../ratelimit/sliding-window';

export type EventsWakeHandlers = {
  /** An event of this account was appended (on any server); read the store for what is new. */
  wake(accountId: string): void;
  /** Wake-ups may have been missed (the listening connection was re-established): read every open channel. */
  resync(): void;
};

export type EventsWake = {
  /** Registers the handlers; answers a function that removes them. */
  subscribe(handlers: EventsWakeHandlers): () => void;
};

/**
 * A rate limiter; answers may come from the database. One that can decide from memory answers
 * at once, without a promise (every request's path asks one); callers await either.
 */
export type SharedRateLimiter = {
  hit(id: string): RateDecision | Promise<RateDecision>;
  /** Whether a hit now would be allowed, without counting one. */
  peek(id: string): RateDecision | Promise<RateDecision>;
};

/** What a server hears about keys changed anywhere: its cache of keys drops them. */
export type KeyChangeHandlers = {
  /** This key's record changed (revoked, rotated, used) on some server: read it again. */
  changed(keyId: string): void;
  /** Changes may have been missed (the listening connection was re-established): forget every key. */
  resync(): void;
};

export type ClusterPort = {
  eventsWake: EventsWake;
  /** Key changes made on any server (the store announces them as it commits them). */
  keyChanges: { subscribe(handlers: KeyChangeHandlers): () => void };
  /**
   * Accounts whose document or memory changed on any server (announced at commit): what a
   * server keeps of them in memory (presence/account-view-cache.ts) is dropped. The handlers'
   * `changed` receives the account id.
   */
  accountChanges: { subscribe(handlers: KeyChangeHandlers): () => void };
  /** Accounts a surface link was made for on any server (announced at commit); `changed` receives the account id. */
  linkChanges: { subscribe(handlers: KeyChangeHandlers): () => void };
  /** Surface tokens revoked on any server or by the CLI (announced at commit); `changed` receives the surface id. */
  surfaceChanges: { subscribe(handlers: KeyChangeHandlers): () => void };
  /** A sliding window named `scope` whose counts are kept where every server sees them. */
  rateLimiter(scope: string, opts: { limit: number; windowMs: number }): SharedRateLimiter;
  /**
   * The per-key request window: decided from this server's memory, its counts written where
   * every server sees them with the server's next commit or within a moment (so a request
   * costs the database no statement of its own); across servers a key may pass its limit by
   * what other servers admitted in that moment.
   */
  requestLimiter(opts: { limit: number; windowMs: number }): SharedRateLimiter;
  /**
   * A window of failures (failed authentications per address) counted where every server sees
   * them, whose `peek` is answered without asking the database: it says only whether the id
   * is over its budget (and until when); `remaining` is not known there.
   */
  failureBudget(scope: string, opts: { limit: number; windowMs: number }): SharedRateLimiter;
};
