// The RateLimit-* headers (IETF draft, as the OpenAPI document declares them) of an answer
// counted in a rate window: a key's, a surface token's, or an address redeeming a link code.
export type RateWindow = { limit: number; remaining: number; resetS: number };

export const rateLimitHeaders = (rate: RateWindow) => ({
  'ratelimit-limit': String(rate.limit),
  'ratelimit-remaining': String(rate.remaining),
  'ratelimit-reset': String(rate.resetS),
});
