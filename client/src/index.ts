// @presence/client public surface: the client factory, its errors and the types callers
// name. Browser-safe: nothing here (or below, outside src/cli) imports a Node built-in or
// the server core — only @presence/protocol, zod and its own files.

// Amounts rounded for people, the same way in every surface (chat replies, cards, CLI, extension).
// The event types of the stream and of webhooks, for a caller that checks a list of them (`presence listen --events`).
export { eventTypes, readableAmounts, readableDecimal, readableSummary, readableUsdIn } from '@presence/protocol';
export { createPresenceClient, DEFAULT_BASE_URL, type PresenceClient, type PresenceClientOptions } from './client';
export {
  isApiError,
  isPresenceClientError,
  isPresenceError,
  type NetworkErrorCode,
  PresenceApiError,
  PresenceClientError,
  PresenceError,
  PresenceEventTooLargeError,
  PresenceNetworkError,
  PresenceProtocolError,
} from './errors';
export type {
  EventData,
  EventOf,
  EventsItem,
  EventsSubscription,
  GapEvent,
  PresenceEvent,
  ReconnectInfo,
  SubscribeOptions,
  UnrecognizedEvent,
} from './events';
export type { RequestOptions, ResponseInfo } from './http';
export type { ChainView, ChainViewName } from './resources/chain';
export type { ConfirmationList, ConfirmationView, ConfirmResult } from './resources/confirm';
export type { CreateKeyParameters, KeySecret, KeyView, ListKeysReturnType, RotateKeyParameters } from './resources/keys';
export type { CreateLinkParameters, LinkCode, RedeemLinkParameters, RedeemLinkReturnType } from './resources/links';
export type { ForgetReturnType, MemoryListing, PinParameters, PinReturnType } from './resources/memory';
export type { MessageResult, MessageStreamEvent, SendMessageParameters, ThreadPage } from './resources/messages';
export type { HealthReturnType } from './resources/meta';
export type { EnrollPasskeyParameters, EnrollPasskeyReturnType, PasskeyList, PasskeyView } from './resources/passkeys';
export type { GetMeReturnType as PresenceView, UpdateMeParameters } from './resources/presence';
export type { StandingList, StandingView } from './resources/standing';
export type {
  LinkRevokedEvent,
  SurfaceAccountEvent,
  SurfaceEventsItem,
  SurfaceRedeemReturnType,
  SurfaceStatusReturnType,
  SurfaceSubscribeOptions,
  SurfaceSubscription,
} from './resources/surface';
export { surfaceEventFor } from './resources/surface';
export type { IntentResult, PolicyDocument, PolicyView, WalletView } from './resources/wallet';
export type {
  CreateWebhookParameters,
  ListWebhooksReturnType,
  RotateWebhookSecretReturnType,
  UpdateWebhookParameters,
  WebhookCreated,
  WebhookDeliveriesReturnType,
  WebhookDelivery,
  WebhookTestResult,
  WebhookView,
} from './resources/webhooks';
export type { RetryPolicy } from './retry';
export type { SseRequestOptions } from './sse-request';
export { PresenceWebhookError, signWebhook, verifyWebhook, WEBHOOK_TOLERANCE_S, type WebhookPayload } from './verify-webhook';
