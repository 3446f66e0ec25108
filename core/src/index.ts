// @presence/core: `createCore`, the ports it talks to the world through, its error type and
// the few pure helpers a host needs. Importing it loads no adapter: the stores, the chain
// client and the model client are subpaths of their own (`@presence/core/lowdb`,
// `/postgres`, `/viem`, `/ai`), so a host loads only the ones it wires in; the devnet is the
// package @presence/devnet.

export type { ChainPort, TokenList } from './chain/index';
export * as chain from './chain/index';
export { type Clock, createManualClock, iso, type ManualClock, systemClock } from './clock/clock';
export type { ClusterPort, EventsWake, EventsWakeHandlers, KeyChangeHandlers, SharedRateLimiter } from './cluster/cluster-port';
export { type ClusterLocks, createLocalLocks } from './concurrency/cluster-locks';
export type { PreparedTurn, TurnAnswer, TurnSink } from './conversation/conversation';
export { HISTORY_BUDGET_CHARS, HISTORY_TURNS } from './conversation/history-budget';
export type { Planner, PlannerContext, PlannerIO, ToolDef } from './conversation/planner-port';
export { type Core, type CoreOptions, createCore, type StoreWiring } from './create-core';
export { isPresenceError, PresenceError, type Problem } from './errors/presence-error';
export { MAX_MESSAGE_CHARS, redactMessage } from './errors/redact-message';
export type { FeedEvent, FeedItem, Subscription } from './events/events-log';
export { fingerprintRequest, type RequestFingerprint } from './idempotency/fingerprint';
export {
  checkIdempotencyKey,
  IDEMPOTENCY_KEY_SHAPE,
  type IdempotencyClaim,
  type StoredAnswer,
} from './idempotency/idempotency';
export { createMemoryLeases, type IdempotencyLeases, type InFlightClaim } from './idempotency/idempotency-leases';
export type { ChainRuntime, WalletDomain } from './intents/wallet-domain';
export { accountCaller, type Caller } from './keys/caller';
export { looksLikeSecret } from './keys/key-secret';
export type { Principal } from './keys/key-service';
export { requireScope, type ScopeRequirement } from './keys/scopes';
export { createKeystore, type Keystore, loadOrCreateMasterKey } from './keystore/keystore';
export { type AccountLimits, accountLimits, limitNames } from './limits/account-limits';
export type { ApprovalView, LinkState, PasskeyService } from './passkeys/passkey-service';
export type { PasskeyStorePort } from './passkeys/passkey-store-port';
export { createRateLimiter, parseRateLimit, type RateDecision, type RateLimiter, type RateLimiterPort } from './ratelimit/sliding-window';
export { toStandingView } from './standing/standing-view';
export {
  fileMasterKeyCheck,
  type MasterKeyCheck,
  type MasterKeyCheckPort,
  MasterKeyMismatch,
  masterKeyCheckValue,
  masterKeyMismatch,
  verifyMasterKey,
  writeMasterKeyFile,
} from './store/master-key-check';
export { makeTreePrivate } from './store/private-tree';
export { type ResealCounts, type Resealer, type RotationResult, rotateMasterKey } from './store/rotate-master-key';
export { STORE_READS, STORE_WRITES } from './store/store-operations';
export type { EmbeddedStore, SharedStore, StoreOps, StorePort, StoreSharing, StoreTx } from './store/store-port';
export type { FeedEntry, SurfaceLinkRecord, SurfaceRecord } from './store/surface-records';
export type { SurfaceStorePort } from './store/surface-store-port';
export type { DeliveryRecord, WebhookRecord } from './store/webhook-records';
export type { WebhookStorePort } from './store/webhook-store-port';
export { type SurfaceFrame, type SurfaceSubscription, subscribeSurfaceFeed } from './surfaces/surface-feed';
export type { SurfacePrincipal, SurfaceService } from './surfaces/surface-service';
export { looksLikeSurfaceToken } from './surfaces/surface-token';
export { redactEventData } from './thread/scope-redaction';
export { type EventsViewer, subscribeVisibleEvents } from './thread/visible-events';
export { messageIdOf, type PingResult, WEBHOOK_TIMEOUT_MS, type WebhookDispatcher } from './webhooks/webhook-dispatcher';
export type { WebhookAnswer, WebhookSend, WebhookSender } from './webhooks/webhook-sender';
export { ROTATION_OVERLAP_MS, toWebhookView, type WebhookService } from './webhooks/webhook-service';
export { signatureOf, signedHeaders } from './webhooks/webhook-signature';
export { isPublicAddress, type ResolvedAddress, type WebhookResolver } from './webhooks/webhook-url';
