// API key request/response shapes. A secret appears only in create and rotate answers.
import { z } from 'zod';
import { KeyId, KeyKind, Scope, Timestamp, withSecret } from './common';

export const KeyState = z.enum(['active', 'revoked']).meta({ id: 'KeyState' });

export const KeyView = z
  .object({
    id: KeyId,
    kind: KeyKind,
    name: z.string(),
    scopes: z.array(Scope),
    last4: z.string(),
    state: KeyState,
    created_at: Timestamp,
    last_used_at: Timestamp.nullable(),
    grace_until: Timestamp.nullable().describe('While a rotation is in its grace window, when the previous secret stops working'),
  })
  .meta({ id: 'Key' });
export type KeyView = z.infer<typeof KeyView>;

export const KeyList = z.object({ keys: z.array(KeyView) }).meta({ id: 'KeyList' });

export const CreateKeyRequest = z
  .strictObject({
    kind: KeyKind.default('live'),
    name: z.string().min(1).max(100),
    scopes: z
      .array(Scope)
      .min(1)
      .refine((s) => new Set(s).size === s.length, 'scopes must not repeat')
      // The refinement, said in JSON Schema for the OpenAPI document (zod cannot derive it).
      .meta({ uniqueItems: true }),
  })
  .meta({ id: 'CreateKeyRequest' });
export type CreateKeyRequest = z.infer<typeof CreateKeyRequest>;

export const KeySecret = withSecret(KeyView, 'KeyWithSecret', 'The key itself. Shown once; store it now.');
export type KeySecret = z.infer<typeof KeySecret>;

export const RotateKeyRequest = z
  .strictObject({
    grace_s: z.number().int().min(0).max(86_400).default(900),
  })
  .meta({ id: 'RotateKeyRequest' });

export const KeyIdParams = z.object({ id: KeyId });
