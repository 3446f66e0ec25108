// One signed request to an endpoint: the payload (without its data when over MAX_BODY_BYTES),
// signed with each of the endpoint's live secrets, sent to the address its URL resolves to
// now (refused when private and not allowed), its answer counted in the metrics.
import type { WebhookPayload } from '@presence/protocol';
import type { Clock } from '../clock/clock';
import type { CoreMetrics } from '../metrics/core-metrics';
import type { WebhookRecord } from '../store/webhook-records';
import type { WebhookAnswer, WebhookSender } from './webhook-sender';
import { signedHeaders } from './webhook-signature';
import { resolveWebhookTarget, type WebhookResolver } from './webhook-url';

/** A request's body at most (DESIGN.md). */
export const MAX_BODY_BYTES = 256 * 1024;

export const ok = (a: WebhookAnswer) => a.status !== null && a.status >= 200 && a.status < 300;

/** What one request needs: the dispatcher's options carry these. */
export type WebhookPostOptions = {
  clock: Clock;
  sender: WebhookSender;
  resolver: WebhookResolver;
  allowPrivate: boolean;
  /** A stored secret in the clear (unsealed under the master key). */
  openSecret(r: WebhookRecord, i: number): string;
  metrics?: Pick<CoreMetrics, 'webhookDelivery' | 'webhookDisabled'>;
  timeoutMs: number;
};

export async function postEvent(
  o: WebhookPostOptions,
  r: WebhookRecord,
  messageId: string,
  payload: WebhookPayload,
): Promise<WebhookAnswer> {
  const { clock, timeoutMs } = o;
  const now = clock.now();
  const whole = JSON.stringify(payload);
  // Over the cap the event goes without its data, saying so (the stream replays it whole).
  const body =
    Buffer.byteLength(whole) <= MAX_BODY_BYTES ? whole : JSON.stringify({ ...payload, data: { truncated: true, at: payload.data.at } });
  const secrets = r.secrets.flatMap((s, i) => (s.expires_at === null || s.expires_at > now ? [o.openSecret(r, i)] : []));
  const headers = signedHeaders(secrets, messageId, Math.floor(now / 1000), body);
  let target: Awaited<ReturnType<typeof resolveWebhookTarget>>;
  try {
    target = await resolveWebhookTarget(r.url, { allowPrivate: o.allowPrivate, resolver: o.resolver });
  } catch (e) {
    return { status: null, error: e instanceof Error ? e.message : String(e), durationMs: 0 };
  }
  const answer = await o.sender({ target, headers, body, timeoutMs });
  o.metrics?.webhookDelivery?.(ok(answer) ? 'delivered' : 'failed', answer.durationMs);
  return answer;
}
