// createPresenceClient: one small object, one group per resource, every function typed
// from the protocol's zod schemas. Dependencies (fetch, sleep, randomness) are arguments so the
// same client runs in Node, a browser extension and tests.
import { createHttp, type ResponseInfo } from './http';
import { chainResource } from './resources/chain';
import { confirmResource } from './resources/confirm';
import { eventsResource } from './resources/events';
import { keysResource } from './resources/keys';
import { linksResource } from './resources/links';
import { memoryResource } from './resources/memory';
import { messagesResource } from './resources/messages';
import { metaResource } from './resources/meta';
import { passkeysResource } from './resources/passkeys';
import { presenceResource } from './resources/presence';
import { standingResource } from './resources/standing';
import { surfaceResource } from './resources/surface';
import { walletResource } from './resources/wallet';
import { webhooksResource } from './resources/webhooks';
import { abortableSleep, defaultRetryPolicy, type RetryPolicy } from './retry';
import { DEFAULT_MAX_EVENT_SIZE } from './sse';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8787';

/** The client's resource groups, each made from the one HTTP layer: a new group is a line here. */
const resources = {
  meta: metaResource,
  presence: presenceResource,
  keys: keysResource,
  memory: memoryResource,
  events: eventsResource,
  messages: messagesResource,
  wallet: walletResource,
  chain: chainResource,
  confirm: confirmResource,
  passkeys: passkeysResource,
  standing: standingResource,
  links: linksResource,
  /** The surface token's own routes: who it is, redeeming codes without a secret, its one events stream. */
  surface: surfaceResource,
  /** Webhook endpoints (admin); receivers check what arrives with `verifyWebhook`. */
  webhooks: webhooksResource,
};

type Resources = { [Name in keyof typeof resources]: ReturnType<(typeof resources)[Name]> };

export type PresenceClient = Resources & {
  baseUrl: string;
  /** A client acting for the linked key `keyId` with this client's surface token (same options otherwise). */
  as(keyId: string): PresenceClient;
};

export type PresenceClientOptions = {
  /** Server address, e.g. http://127.0.0.1:8787 (a trailing /v1 is accepted). */
  baseUrl?: string;
  /** prs_live_… or prs_test_…, or a surface token prs_surface_…; omit for public endpoints only. */
  token?: string;
  /**
   * With a surface token: the linked key (key_…) every request runs as, sent as
   * Presence-Acting-For (as Stripe-Account names a connected account). `client.as(keyId)`
   * makes such a client from a surface's.
   */
  actingFor?: string;
  fetch?: typeof fetch;
  /** Extra attempts on 429, 5xx, 409 idempotency_in_progress and network errors (default 2), or the whole policy. */
  retries?: number | Partial<RetryPolicy>;
  /** Time limit per attempt (default 30 s). */
  timeoutMs?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Called for every answer (each attempt), e.g. to log or to read Presence-Mode. */
  onResponse?: (info: ResponseInfo) => void;
  /**
   * Characters one event of a stream (events, streamed replies) may hold (default 1 MiB).
   * A larger one ends the stream with PresenceEventTooLargeError instead of being buffered.
   */
  maxEventSize?: number;
};

export function createPresenceClient(options: PresenceClientOptions = {}): PresenceClient {
  const retry: RetryPolicy =
    typeof options.retries === 'number'
      ? { ...defaultRetryPolicy, retries: options.retries }
      : { ...defaultRetryPolicy, ...options.retries };
  const http = createHttp({
    baseUrl: options.baseUrl ?? DEFAULT_BASE_URL,
    token: options.token,
    actingFor: options.actingFor,
    // Bound, because a browser's fetch throws "Illegal invocation" when called as a method of another object.
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    retry,
    timeoutMs: options.timeoutMs ?? 30_000,
    sleep: options.sleep ?? abortableSleep,
    random: options.random ?? Math.random,
    maxEventSize: options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE,
    onResponse: options.onResponse,
  });
  // One cast: Object.fromEntries loses the pairing of each name with its group's type.
  const groups = Object.fromEntries(Object.entries(resources).map(([name, make]) => [name, make(http)])) as Resources;
  return {
    baseUrl: http.baseUrl,
    ...groups,
    as: (keyId: string): PresenceClient => createPresenceClient({ ...options, actingFor: keyId }),
  };
}
