// A passkey authenticator in software, for tests that cannot drive a browser (the bots' card
// tests) and for answers a browser would never send (another origin, no user-verification
// flag): an ES256 key pair, "none" attestation, and assertions over the challenge given, with
// a signature counter that grows. What it makes is the WebAuthn JSON @simplewebauthn/browser
// posts, so the server verifies it as it would a real device's.
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64url = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const sha256 = (s: string | Uint8Array) => createHash('sha256').update(s).digest();
/** A plain Uint8Array of this realm: the CBOR encoder checks `instanceof Uint8Array`, which a Buffer fails under jsdom. */
const bytes = (b: Uint8Array) => Uint8Array.from(b);

/** Flags: user present, user verified; attested credential data follows. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export type SoftAuthenticatorOptions = {
  /** The origin the browser would report (clientDataJSON). */
  origin: string;
  /** Answer with the user-verification flag set (default true). */
  verified?: boolean;
};

export function createSoftAuthenticator({ origin, verified = true }: SoftAuthenticatorOptions) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  const credentialId = randomBytes(16);
  const id = b64url(credentialId);
  let counter = 0;
  const flags = (extra = 0, uv = verified) => (uv ? UP | UV : UP) | extra;
  const clientData = (type: string, challenge: string, at = origin) =>
    Buffer.from(JSON.stringify({ type, challenge, origin: at, crossOrigin: false }));
  const counterBytes = () => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(counter);
    return b;
  };

  /** What the browser hands the page: this credential, with the ceremony's `response`. */
  const credential = <R>(response: R) => ({ id, rawId: id, type: 'public-key' as const, clientExtensionResults: {}, response });

  return {
    id,
    /** Answers `navigator.credentials.create` for these options (from the enroll page's options step). */
    register(options: { challenge: string; rp: { id?: string } }) {
      const rpId = options.rp.id ?? new URL(origin).hostname;
      const cose = new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, bytes(Buffer.from(jwk.x, 'base64url'))],
        [-3, bytes(Buffer.from(jwk.y, 'base64url'))],
      ]);
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(credentialId.length);
      const authData = Buffer.concat([
        sha256(rpId),
        Buffer.from([flags(AT)]),
        counterBytes(),
        Buffer.alloc(16),
        idLength,
        credentialId,
        Buffer.from(isoCBOR.encode(cose)),
      ]);
      const attestationObject = isoCBOR.encode(
        new Map<string, unknown>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', bytes(authData)],
        ]) as never,
      );
      return credential({
        clientDataJSON: b64url(clientData('webauthn.create', options.challenge)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      });
    },
    /** Answers `navigator.credentials.get`; `origin` and `verified` override what the browser would report. */
    assert(
      options: { challenge: string; rpId?: string },
      { origin: at = origin, verified: uv = verified }: { origin?: string; verified?: boolean } = {},
    ) {
      counter += 1;
      const authData = Buffer.concat([sha256(options.rpId ?? new URL(origin).hostname), Buffer.from([flags(0, uv)]), counterBytes()]);
      const client = clientData('webauthn.get', options.challenge, at);
      const signature = sign('sha256', Buffer.concat([authData, sha256(client)]), privateKey);
      return credential({
        clientDataJSON: b64url(client),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
      });
    },
  };
}
