// @presence/core public surface.

export type { ChainPort, TokenList } from './chain/index';
export * as chain from './chain/index';
export { type Clock, createManualClock, iso, type ManualClock, systemClock } from './clock/clock';
export { type ClusterLocks, createLocalLocks } from './concurrency/cluster-locks';
export { AI_MAX_TOOL_STEPS, type AiPlannerOptions, createAiPlanner } from './conversation/ai-planner';
export type { PreparedTurn, TurnAnswer, TurnSink } from './conversation/conversation';
export { HISTORY_BUDGET_CHARS, HISTORY_TURNS } from './conversation/history-budget';
export { type Core, type CoreOptions, createCore } from './create-core';
export { isPresenceError, PresenceError, type Problem } from './errors/presence-error';
export type { FeedEvent, FeedItem, Subscription } from './events/events-log';
export { fingerprintRequest, type IdempotencyClaim, type StoredAnswer } from './idempotency/idempotency';
export { looksLikeSecret } from './keys/key-secret';
export type { Principal } from './keys/key-service';
export { requireScope, type ScopeRequirement } from './keys/scopes';
export { createRateLimiter, parseRateLimit, type RateDecision, type RateLimiter } from './ratelimit/sliding-window';
export { toStandingView } from './standing/standing-view';
export { createLowdbStore } from './store/lowdb/lowdb-store';
export { makeTreePrivate } from './store/private-tree';
export type { StorePort } from './store/store-port';
export { createKeystore, loadOrCreateMasterKey } from './wallet/keystore';
export type { ChainRuntime, WalletDomain } from './wallet/wallet-domain';
