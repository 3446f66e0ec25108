// Passkey approvals (DESIGN.md "Passkey approvals"): the account's passkeys, the one-time
// enroll link, what a hold above `passkey_over` carries, and the bodies the server's enroll and
// approve pages post (the WebAuthn JSON that @simplewebauthn/browser produces).
import { z } from 'zod';
import { Timestamp } from './common';

/** What a hold above `passkey_over` carries (absent on every other hold). */
export const PasskeyHold = z.object({
  passkey: z.boolean().optional().describe('True when this hold is approved only with a passkey, on approve_url'),
  approve_url: z.string().optional().describe('The one-time page where the hold is approved with a passkey (valid until the hold expires)'),
});

export const PasskeyView = z
  .object({
    id: z.string(),
    name: z.string(),
    created_at: Timestamp,
    last_used_at: Timestamp.nullable(),
  })
  .meta({ id: 'Passkey' });
export type PasskeyView = z.infer<typeof PasskeyView>;
export const PasskeyList = z.object({ passkeys: z.array(PasskeyView) }).meta({ id: 'PasskeyList' });
export const PasskeyParams = z.object({
  id: z.string().regex(/^pk_[0-9A-Za-z]{16}$/, 'a passkey id looks like pk_ followed by 16 letters or digits'),
});

export const EnrollLinkRequest = z
  .strictObject({
    name: z.string().min(1).max(64).optional().describe('What to call the passkey (default: "passkey")'),
  })
  .meta({ id: 'EnrollLinkRequest' });
export const EnrollLink = z
  .object({
    url: z.string().describe('The one-time page that adds a passkey to this account. Shown once.'),
    expires_at: Timestamp,
  })
  .meta({ id: 'EnrollLink' });

/** A one-time token of the enroll and approve links (path parameter). */
export const PasskeyTokenParams = z.object({ token: z.string().regex(/^[0-9A-Za-z_-]{20,64}$/, 'not a link token') });

const base64url = z
  .string()
  .max(16_384)
  .regex(/^[0-9A-Za-z_-]*$/, 'base64url');
const extensions = z.record(z.string(), z.unknown());

/** A WebAuthn credential as @simplewebauthn/browser answers it: the envelope both ceremonies share, around its own `response`. */
const credential = <R extends z.ZodRawShape>(response: R) =>
  z.strictObject({
    id: base64url,
    rawId: base64url,
    type: z.literal('public-key'),
    authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
    clientExtensionResults: extensions,
    response: z.strictObject(response),
  });

export const PasskeyRegistration = credential({
  clientDataJSON: base64url,
  attestationObject: base64url,
  authenticatorData: base64url.optional(),
  transports: z.array(z.string().max(32)).max(8).optional(),
  publicKeyAlgorithm: z.number().int().optional(),
  publicKey: base64url.optional(),
}).meta({ id: 'PasskeyRegistration' });
export type PasskeyRegistration = z.infer<typeof PasskeyRegistration>;

export const PasskeyAssertion = credential({
  clientDataJSON: base64url,
  authenticatorData: base64url,
  signature: base64url,
  userHandle: base64url.optional(),
}).meta({ id: 'PasskeyAssertion' });
export type PasskeyAssertion = z.infer<typeof PasskeyAssertion>;

/** The options a page hands `navigator.credentials` (WebAuthn JSON, as the server library made them). */
export const PasskeyOptions = z.record(z.string(), z.unknown()).meta({ id: 'PasskeyOptions' });

export const PasskeyAdded = z.object({ passkey: PasskeyView }).meta({ id: 'PasskeyAdded' });

/** A step of a passkey page that takes nothing but its link (an empty JSON object, or no body). */
export const EmptyRequest = z.strictObject({}).meta({ id: 'EmptyRequest' });
