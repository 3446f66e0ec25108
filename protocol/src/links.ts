// Linking surfaces with one-time codes.
import { z } from 'zod';
import { Scope, Timestamp } from './common';

export const LinkRequest = z
  .strictObject({
    scopes: z.array(Scope).min(1).optional(),
    ttl_s: z.number().int().min(30).max(86_400).optional(),
  })
  .meta({ id: 'LinkRequest' });
export const LinkCode = z.object({ code: z.string(), expires_at: Timestamp, scopes: z.array(Scope) }).meta({ id: 'LinkCode' });
export const RedeemParams = z.object({ code: z.string().min(1).max(32) });
export const RedeemRequest = z
  .strictObject({
    surface: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'surface is a short lowercase name such as telegram, discord or extension'),
    user_id: z.string().min(1).max(128),
    name: z.string().min(1).max(64),
  })
  .meta({ id: 'RedeemRequest' });
export const RedeemResult = z
  .object({
    account: z.string(),
    key: z.string().describe('A new live key for this surface user. Shown once.'),
    key_id: z.string(),
    name: z.string(),
    scopes: z.array(Scope),
    surface_user: z.string(),
    last_event_id: z
      .number()
      .int()
      .min(0)
      .describe(
        "The account's newest live event id when the code was redeemed (0 when there is none). Send it as Last-Event-ID on the first GET /v1/events, so nothing that happens between redeeming and subscribing is missed.",
      ),
  })
  .meta({ id: 'RedeemResult' });
