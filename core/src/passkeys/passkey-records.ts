// What the passkey store keeps: an account's WebAuthn credentials (public key and signature
// counter, never anything secret) and the tickets behind the one-time enroll and approve links
// (found by the SHA-256 of the link's token; the token itself is never kept), each with the
// single-use challenge of its ceremony under way.
import { KeyKind } from '@presence/protocol';
import { z } from 'zod';

export const PasskeyCredentialRecord = z.object({
  /** The credential id (base64url), as the authenticator made it: unique across accounts. */
  credential_id: z.string(),
  /** Our id for it, pk_…: what GET/DELETE /v1/passkeys name. */
  id: z.string(),
  account_id: z.string(),
  name: z.string(),
  /** COSE public key, base64url. */
  public_key: z.string(),
  counter: z.number().int().min(0),
  transports: z.array(z.string()),
  created_at: z.number(),
  last_used_at: z.number().nullable(),
  /** Set when deleted (the embedded store's log keeps the line). */
  deleted_at: z.number().nullable().default(null),
});
export type PasskeyCredentialRecord = z.infer<typeof PasskeyCredentialRecord>;

export const PasskeyTicketRecord = z.object({
  /** SHA-256 (hex) of the link's token. */
  hash: z.string(),
  kind: z.enum(['enroll', 'approve']),
  account_id: z.string(),
  /** Whose hold an approve link answers (a test key's holds live in its overlay). */
  key_kind: KeyKind,
  /** The hold an approve link is bound to; null for enroll. */
  confirm_id: z.string().nullable(),
  name: z.string().nullable(),
  expires_at: z.number(),
  /** The challenge of the ceremony under way (base64url), taken once by its verification. */
  challenge: z.string().nullable(),
  used_at: z.number().nullable(),
  created_at: z.number(),
});
export type PasskeyTicketRecord = z.infer<typeof PasskeyTicketRecord>;
