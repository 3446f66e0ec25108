// Wires core's services from its ports. The server calls this once; tests call it with a
// driven clock and a temporary store. Here, once, each key kind gets its store: live keys
// the live one, test keys an overlay on it (reads are real, writes stay in memory and are
// seen by test keys only), so services run the same code for both kinds.

import type { PresenceView } from '@presence/protocol';
import { createAccountService } from './accounts/account-service';
import { createBeat } from './beat';
import { NO_NOTICES } from './cache/recent-cache';
import type { Clock } from './clock/clock';
import type { ClusterPort } from './cluster/cluster-port';
import type { ClusterLocks } from './concurrency/cluster-locks';
import { createConversation } from './conversation/conversation';
import { createLocalPlanner } from './conversation/local-planner';
import type { Planner } from './conversation/planner-port';
import { createResumeNotices } from './conversation/resume-notices';
import { createCoreEvents } from './core-events';
import { PresenceError } from './errors/presence-error';
import type { EventsLog } from './events/events-log';
import { createIdempotency } from './idempotency/idempotency';
import { createMemoryLeases, type IdempotencyLeases } from './idempotency/idempotency-leases';
import { type ChainRuntime, createWalletDomain, type WalletDomain } from './intents/wallet-domain';
import { createKeyService, type KeyService } from './keys/key-service';
import type { Keystore } from './keystore/keystore';
import { type AccountLimits, accountLimits } from './limits/account-limits';
import { createLinkService, LINK_CODE_KEY_INFO } from './links/link-service';
import { createCompactor } from './memory/compactor';
import { createMemoryService } from './memory/memory-service';
import type { CoreMetrics } from './metrics/core-metrics';
import { APPROVE_LINK_KEY_INFO, createPasskeyHolds } from './passkeys/passkey-holds';
import { createPasskeyService } from './passkeys/passkey-service';
import type { PasskeyStorePort } from './passkeys/passkey-store-port';
import { createPolicyService } from './policy/policy-service';
import { createAccountViewCache, withViewDrops } from './presence/account-view-cache';
import { createPresenceService } from './presence/presence-service';
import { createRateLimiter, type RateLimiterPort } from './ratelimit/sliding-window';
import { createStandingService } from './standing/standing-service';
import { createOverlayStore, overlayAccountsFor, type StoreFor } from './store/overlay-store';
import { type OverlayShare, shareOverlay } from './store/shared-overlay';
import type { EmbeddedStore, SharedStore, StorePort } from './store/store-port';
import type { SurfaceStorePort } from './store/surface-store-port';
import type { WebhookRecord } from './store/webhook-records';
import type { WebhookStorePort } from './store/webhook-store-port';
import { followAccountEvents, followSurfaceFeed } from './surface-feed-notice';
import { createSurfaceService } from './surfaces/surface-service';
import { createThread } from './thread/thread';
import { createWebhookDispatcher } from './webhooks/webhook-dispatcher';
import { httpSender, type WebhookSender } from './webhooks/webhook-sender';
import { createWebhookService, webhookSecrets } from './webhooks/webhook-service';
import { systemResolver, type WebhookResolver } from './webhooks/webhook-url';

/**
 * How the store is shared. One process (lowdb): events fan out and requests are counted in it.
 * Several servers (PostgreSQL) need the cluster port: without it the events log would take an
 * in-process lock inside units of work holding the account's row, and deadlock (events-log.ts),
 * so that wiring does not compile.
 */
export type StoreWiring =
  | { store: EmbeddedStore; cluster?: undefined }
  | {
      store: SharedStore;
      /**
       * The other servers sharing the store: live events arrive from every server and rate
       * limits count every server's requests.
       */
      cluster: ClusterPort;
    };

export type CoreOptions = StoreWiring & {
  clock: Clock;
  rateLimit: { limit: number; windowMs: number };
  chainName?: () => string;
  /** Where servers sharing a database share the test keys' overlay (PostgreSQL); absent, it stays in this process. */
  overlayShare?: OverlayShare;
  /** The chain the wallets live on; without it wallet routes answer chain_unavailable. */
  chain?: { runtime: ChainRuntime; keystore: Keystore };
  /** The master key's keystore, for secrets kept outside the wallet (link codes are hashed under a subkey); defaults to the chain's. */
  keystore?: Keystore;
  /** Locks that hold across servers (PostgreSQL's advisory locks); default: in this process only. */
  locks?: ClusterLocks;
  /** Planner for `provider:model` routes (the AI SDK adapter); absent, such routes are 502 model_unavailable. */
  modelPlanner?: (model: string) => Planner;
  /** Idempotency-Key leases of live keys: shared by the servers of a deployment (PostgreSQL); default in memory. */
  leases?: IdempotencyLeases;
  /** Where a failure that nobody awaits is reported (a pump's failed read of the events table). */
  onBackgroundError?: (e: unknown) => void;
  /** What one account may keep (defaults: `accountLimits`); tests pass smaller ones. */
  accountLimits?: Partial<AccountLimits>;
  /** Told what is worth counting (events, intent outcomes, standing fires); the server's is prom-client. */
  metrics?: CoreMetrics;
  /** Surface tokens, their links and the surface feed; absent, there are no surfaces (`core.surfaces` is null). */
  surfaces?: SurfaceStorePort;
  /** Webhook endpoints and their deliveries; absent, there are no webhooks (`core.webhooks` is null). */
  webhooks?: WebhookStorePort;
  /** How webhooks are sent: PRESENCE_WEBHOOK_ALLOW_PRIVATE, and (tests) the resolver, the sender and the timeout. */
  webhookOptions?: { allowPrivate?: boolean; resolver?: WebhookResolver; sender?: WebhookSender; timeoutMs?: number; serverId?: string };
  /** Passkeys and their link tickets; absent, there are no passkey approvals (`core.passkeys` is null). */
  passkeys?: PasskeyStorePort;
  /** The origin browsers reach this deployment at (PRESENCE_PUBLIC_URL): the passkeys' origin and RP ID, and the links' base. */
  publicUrl?: () => string;
  /** Told of every refused passkey ceremony (the server logs it; never with the link's token). */
  onPasskeyRefused?: (r: { account_id: string | null; step: 'enroll' | 'approve'; reason: string }) => void;
};

export type Core = ReturnType<typeof createCore>;

const linkCodeKey = (keystore: Keystore | undefined) => keystore?.subkey(LINK_CODE_KEY_INFO) ?? null;

/**
 * Each key kind's store: live keys the live one, test keys an overlay on it. What GET
 * /v1/presence/me shows of a live account is kept in memory and dropped by every change, here
 * or (with other servers on the store) on another server (account-view-cache.ts).
 */
function keyStores(o: CoreOptions) {
  const { clock } = o;
  const views = createAccountViewCache<PresenceView>({ changes: o.cluster?.accountChanges ?? NO_NOTICES, now: () => clock.now() });
  const store = withViewDrops(o.store, views.drop);
  const accounts = overlayAccountsFor(clock);
  const own = createOverlayStore(store, { clock, accounts });
  const overlay = o.overlayShare ? shareOverlay(own, accounts, o.overlayShare) : own;
  const stores = { live: store, test: overlay } as const;
  const storeFor: StoreFor = (kind) => stores[kind];
  return { store, storeFor, views };
}

/** Rate limits: counted by every server when there is a cluster, else in memory. */
function rateLimitsOf(o: CoreOptions) {
  const { clock } = o;
  /** A sliding window counted by every server when there is a cluster, else in memory. */
  const rateLimiterFor = (scope: string, opts: { limit: number; windowMs: number }): RateLimiterPort =>
    o.cluster ? o.cluster.rateLimiter(scope, opts) : createRateLimiter({ ...opts, clock });
  /** A window of failures whose refusals are known without asking the shared store on every request (cluster-port.ts). */
  const failureBudgetFor = (scope: string, opts: { limit: number; windowMs: number }): RateLimiterPort =>
    o.cluster ? o.cluster.failureBudget(scope, opts) : createRateLimiter({ ...opts, clock });
  const localRateLimiter = o.cluster ? null : createRateLimiter({ ...o.rateLimit, clock });
  const rateLimiter: RateLimiterPort = o.cluster ? o.cluster.requestLimiter(o.rateLimit) : (localRateLimiter as RateLimiterPort);
  return { rateLimiterFor, failureBudgetFor, localRateLimiter, rateLimiter };
}

/** The planner a route names: `local`, or a `provider:model` through the model adapter. */
function plannersOf(o: CoreOptions): (model: string) => Planner {
  const local = createLocalPlanner();
  return (model) => {
    if (model === 'local') return local;
    if (!o.modelPlanner)
      throw new PresenceError('model_unavailable', `route ${model} needs PRESENCE_LLM_BASE_URL; set it or use route.model "local"`);
    return o.modelPlanner(model);
  };
}

/** Holds above passkey_over are approved by passkey: only with a passkey store and a master key. */
function passkeyHoldsOf(o: CoreOptions, publicUrl: () => string) {
  const keystore = o.keystore ?? o.chain?.keystore;
  if (!o.passkeys || !keystore) return undefined;
  return createPasskeyHolds({ passkeys: o.passkeys, clock: o.clock, publicUrl, linkKey: keystore.subkey(APPROVE_LINK_KEY_INFO) });
}

/**
 * The spend policy, the wallet domain under it (absent without a chain) and the passkeys that
 * approve its holds (absent without a passkey store).
 */
function spendingOf(
  o: CoreOptions,
  { store, storeFor, events, limits }: { store: StorePort; storeFor: StoreFor; events: EventsLog; limits: AccountLimits },
) {
  const { clock, metrics } = o;
  const publicUrl = o.publicUrl ?? (() => 'http://localhost');
  const passkeyStore = o.passkeys ?? null;
  const policies = createPolicyService({
    storeFor,
    clock,
    tokenList: o.chain?.runtime.tokenList ?? null,
    passkeyCount: passkeyStore ? async (id) => (await passkeyStore.listCredentials(id)).length : undefined,
  });
  const wallet: WalletDomain | null = o.chain
    ? createWalletDomain({
        store,
        storeFor,
        clock,
        events,
        policies,
        keystore: o.chain.keystore,
        runtime: o.chain.runtime,
        locks: o.locks,
        metrics,
        holds: passkeyHoldsOf(o, publicUrl),
        maxHeld: limits.held,
      })
    : null;
  const passkeys = passkeyStore
    ? createPasskeyService({
        passkeys: passkeyStore,
        storeFor,
        clock,
        publicUrl,
        confirmations: wallet?.confirmations ?? null,
        policies,
        onRefused: o.onPasskeyRefused,
      })
    : null;
  return { policies, wallet, passkeys };
}

/**
 * Link codes: hashed with a subkey of the master key; redemptions counted in the shared rate
 * limiter with other servers (alone, by the link service's own guard in memory).
 */
function linksOf(
  o: CoreOptions,
  deps: {
    store: StorePort;
    keys: KeyService;
    events: EventsLog;
    rateLimiterFor: ReturnType<typeof rateLimitsOf>['rateLimiterFor'];
    limits: AccountLimits;
  },
) {
  return createLinkService({
    store: deps.store,
    clock: o.clock,
    keys: deps.keys,
    events: deps.events,
    codeKey: linkCodeKey(o.keystore ?? o.chain?.keystore),
    rateLimiterFor: o.cluster ? deps.rateLimiterFor : undefined,
    limits: deps.limits,
  });
}

export function createCore(o: CoreOptions) {
  const { clock, metrics } = o;
  const { store, storeFor, views } = keyStores(o);
  const limits: AccountLimits = { ...accountLimits, ...o.accountLimits };
  const { events, follow } = createCoreEvents({ storeFor, clock, wake: o.cluster?.eventsWake, onError: o.onBackgroundError, metrics });
  const { rateLimiterFor, failureBudgetFor, localRateLimiter, rateLimiter } = rateLimitsOf(o);
  const keys = createKeyService({ store, clock, limits, changes: o.cluster?.keyChanges });
  const memory = createMemoryService({ storeFor, clock, events, limits });
  const { policies, wallet, passkeys } = spendingOf(o, { store, storeFor, events, limits });
  const thread = createThread({ store, storeFor, events, clock, onError: o.onBackgroundError });
  const standing = createStandingService({ store, storeFor, clock, thread, wallet, limits });
  // Test keys' leases in memory: their requests are never coordinated across servers.
  const leases = { live: o.leases ?? createMemoryLeases(), test: createMemoryLeases() };
  const idempotency = createIdempotency({ storeFor, leasesFor: (kind) => leases[kind], clock });
  const tokenList = o.chain?.runtime.tokenList ?? null;
  const planners = plannersOf(o);
  const conversation = createConversation({ storeFor, clock, memory, wallet, standing, thread, planners, tokenList, idempotency });
  if (wallet) createResumeNotices({ confirmations: wallet.confirmations, thread });
  const links = linksOf(o, { store, keys, events, rateLimiterFor, limits });
  const surfaces = o.surfaces ? wireSurfaces(o.surfaces) : null;
  function wireSurfaces(surfaceStore: SurfaceStorePort) {
    const service = createSurfaceService({
      store,
      surfaces: surfaceStore,
      clock,
      keys,
      events,
      links,
      rateLimiterFor,
      linkChanges: o.cluster?.linkChanges,
      surfaceChanges: o.cluster?.surfaceChanges,
      onError: o.onBackgroundError,
    });
    follow({ surfaces: service });
    // Not awaited by the revocation it follows; keyRevoked reports its own failures, never rejects.
    keys.onRevoke((keyId) => void service.keyRevoked(keyId));
    if (o.cluster) followSurfaceFeed(o.cluster.eventsWake, service);
    return service;
  }
  const webhooks = o.webhooks ? wireWebhooks(o.webhooks) : null;
  function wireWebhooks(store: WebhookStorePort) {
    const wo = o.webhookOptions ?? {};
    const keystore = o.keystore ?? o.chain?.keystore ?? null;
    // With other servers: which endpoints an account has is kept and dropped by any server's
    // change (the webhook store announces them on the accounts channel), so an event of an
    // account without endpoints costs no read of its own. Kept longer than a presence view: read
    // again every second, a busy account's events cost a tenth of a commit more each
    // (postgres-server.test's count); a notification lost unnoticed only delays a new
    // endpoint's first wake-up, and its cursor keeps every event for it meanwhile.
    const cache = o.cluster
      ? createAccountViewCache<WebhookRecord[]>({ changes: o.cluster.accountChanges, now: () => clock.now(), maxAgeMs: 30_000 })
      : null;
    const endpointsOf = (accountId: string) =>
      cache ? cache.get(accountId, () => store.listWebhooks(accountId)) : store.listWebhooks(accountId);
    const common = { clock, resolver: wo.resolver ?? systemResolver, allowPrivate: wo.allowPrivate ?? false };
    const d = createWebhookDispatcher({
      ...common,
      webhooks: store,
      store: o.store,
      eventsFor: storeFor,
      events,
      sender: wo.sender ?? httpSender,
      openSecret: webhookSecrets(keystore).open,
      endpointsOf,
      timeoutMs: wo.timeoutMs,
      serverId: wo.serverId,
      metrics,
      onError: o.onBackgroundError,
    });
    follow({ dispatcher: d });
    const service = createWebhookService({
      ...common,
      webhooks: store,
      store: o.store,
      eventsFor: storeFor,
      dispatcher: d,
      keystore,
      limit: limits.webhooks,
      changed: (accountId) => cache?.drop(accountId),
    });
    keys.onRevoke((keyId) => void service.keyRevoked(keyId).catch((e: unknown) => o.onBackgroundError?.(e)));
    if (o.cluster) followAccountEvents(o.cluster.eventsWake, d, o.onBackgroundError);
    return { ...service, dispatcher: d };
  }
  return {
    clock,
    store,
    /** The store a key of each kind works on: the live one, or the test keys' overlay of it. */
    storeFor,
    events,
    keys,
    memory,
    accounts: createAccountService({ store, clock, keys }),
    presence: createPresenceService({ storeFor, memory, chainName: o.chainName ?? (() => 'devnet'), views }),
    compactor: createCompactor({ store, clock, events }),
    idempotency,
    rateLimiter,
    rateLimiterFor,
    failureBudgetFor,
    policies,
    wallet,
    thread,
    standing,
    conversation,
    links,
    /** Passkeys and the enroll and approve ceremonies; null without a passkey store. */
    passkeys,
    /** Surface tokens, acting for linked keys and the surface feed; null without a surfaces store. */
    surfaces,
    /** Webhook endpoints (and their dispatcher); null without a webhooks store. */
    webhooks,
    ...createBeat({ wallet, webhooks, standing, events, surfaces, idempotency, passkeys, localRateLimiter, metrics }),
  };
}
