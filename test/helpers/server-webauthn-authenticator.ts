/**
 * A software WebAuthn authenticator that really signs: node:crypto ES256
 * (P-256) keys, hand-built clientDataJSON, authenticatorData and a `none`
 * attestation object in CBOR. Used to test passkey registration and sign-in
 * against the reference server without a browser.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

type Cbor = number | string | Uint8Array | CborMap | { [key: string]: Cbor };
type CborMap = Map<number | string, Cbor>;

function head(major: number, length: number): Uint8Array {
  if (length < 24) return Uint8Array.of((major << 5) | length);
  if (length < 256) return Uint8Array.of((major << 5) | 24, length);
  if (length < 65_536) return Uint8Array.of((major << 5) | 25, length >> 8, length & 255);
  return Uint8Array.of(
    (major << 5) | 26,
    (length >>> 24) & 255,
    (length >> 16) & 255,
    (length >> 8) & 255,
    length & 255,
  );
}

/** Minimal CBOR encoder: unsigned/negative integers, byte and text strings, maps. */
export function cbor(value: Cbor): Uint8Array {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = new TextEncoder().encode(value);
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  const parts: Uint8Array[] = [head(5, entries.length)];
  for (const [k, v] of entries) parts.push(cbor(k), cbor(v));
  return Buffer.concat(parts);
}

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest();
const u32 = (n: number): Uint8Array =>
  Uint8Array.of((n >>> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255);

/** Authenticator data flags. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

interface StoredCredential {
  readonly id: Uint8Array;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly userHandle: Uint8Array;
  counter: number;
}

/** Options the server hands out (the fields this authenticator reads). */
export interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
}

/** Request options of a sign-in (the fields this authenticator reads). */
export interface RequestOptions {
  challenge: string;
  rpId?: string;
}

/** A platform authenticator holding ES256 credentials. */
export class SoftwareAuthenticator {
  readonly origin: string;
  readonly rpId: string;
  readonly credentials: StoredCredential[] = [];
  /** Set false to clear the user-verified flag. */
  userVerified = true;

  constructor(options: { origin?: string; rpId?: string } = {}) {
    this.origin = options.origin ?? 'http://localhost';
    this.rpId = options.rpId ?? 'localhost';
  }

  #clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  #flags(extra: number): number {
    return UP | (this.userVerified ? UV : 0) | extra;
  }

  /** navigator.credentials.create(): a new credential and its RegistrationResponseJSON. */
  create(options: CreationOptions, overrides: { origin?: string } = {}) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = cbor(
      new Map<number, Cbor>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const id = randomBytes(16);
    const credIdLength = Uint8Array.of(id.length >> 8, id.length & 255);
    const authData = Buffer.concat([
      sha256(options.rp.id ?? this.rpId),
      Uint8Array.of(this.#flags(AT)),
      u32(0),
      new Uint8Array(16), // AAGUID
      credIdLength,
      id,
      cose,
    ]);
    const attestationObject = cbor({ fmt: 'none', attStmt: {}, authData });
    this.credentials.push({
      id,
      privateKey,
      publicKey,
      userHandle: Buffer.from(options.user.id, 'base64url'),
      counter: 0,
    });
    const clientDataJSON = this.#clientData(
      'webauthn.create',
      options.challenge,
      overrides.origin ?? this.origin,
    );
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    };
  }

  /** navigator.credentials.get(): an AuthenticationResponseJSON signed by credential `index`. */
  get(options: RequestOptions, overrides: { index?: number; origin?: string; counter?: number } = {}) {
    const credential = this.credentials[overrides.index ?? 0];
    if (credential === undefined) throw new Error('no credential');
    credential.counter = overrides.counter ?? credential.counter + 1;
    const authData = Buffer.concat([
      sha256(options.rpId ?? this.rpId),
      Uint8Array.of(this.#flags(0)),
      u32(credential.counter),
    ]);
    const clientDataJSON = this.#clientData(
      'webauthn.get',
      options.challenge,
      overrides.origin ?? this.origin,
    );
    const signature = sign(
      'sha256',
      Buffer.concat([authData, sha256(clientDataJSON)]),
      credential.privateKey,
    );
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: b64url(credential.userHandle),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    };
  }
}
