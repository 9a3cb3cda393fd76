/**
 * The stored form of a {@link KeyRing}: UTF-8 JSON, versioned.
 *
 * ```json
 * {
 *   "format": "agent-messaging-sdk/key-ring",
 *   "version": 1,
 *   "current": { "created_at_ms": 0, "x25519_public_key": "…", "x25519_private_key": "…",
 *                "ed25519_public_key": "…", "ed25519_private_key": "…" },
 *   "retired": [ { "created_at_ms": 0, "retired_at_ms": 0, "not_after_ms": 0,
 *                  "x25519_public_key": "…", "x25519_private_key": "…" } ]
 * }
 * ```
 *
 * Keys are padded base64 of the raw 32 bytes. Decoding re-derives every
 * public key from its private key and requires a match, so bit rot is caught
 * as corruption instead of producing a key that silently fails to decrypt.
 *
 * @module
 */
import { z } from 'zod';
import { fromBase64, fromUtf8, toBase64, utf8 } from '../../core/encoding.js';
import { CryptoError } from '../../core/errors/crypto-error.js';
import { keysFromPrivate, type KeyPair } from '../keys.js';
import { KeyRing, type RetiredKeyGeneration } from './key-ring.js';

/** Value of the file's `format` field. */
export const KEY_RING_FORMAT = 'agent-messaging-sdk/key-ring';
/** Largest stored key ring read, in bytes; a larger file is corrupt. */
export const KEY_RING_MAX_BYTES = 1_048_576;

const rawKey = z
  .string()
  .max(64)
  .refine((s) => fromBase64(s)?.length === 32, { message: 'must be padded base64 of 32 bytes' });
const timeMs = z.int().min(0);

/** The stored key ring (file field names). */
export const KeyRingFileSchema = z.strictObject({
  format: z.literal(KEY_RING_FORMAT),
  version: z.literal(1),
  current: z.strictObject({
    created_at_ms: timeMs,
    x25519_public_key: rawKey,
    x25519_private_key: rawKey,
    ed25519_public_key: rawKey,
    ed25519_private_key: rawKey,
  }),
  retired: z
    .array(
      z.strictObject({
        created_at_ms: timeMs,
        retired_at_ms: timeMs,
        not_after_ms: timeMs,
        x25519_public_key: rawKey,
        x25519_private_key: rawKey,
      }),
    )
    .max(1000),
});
/** The stored key ring. */
export type KeyRingFile = z.infer<typeof KeyRingFileSchema>;

/** Serialises a ring to its stored form (contains private keys: write it only to a protected place). */
export function encodeKeyRing(ring: KeyRing): Uint8Array {
  const { keys, createdAt } = ring.current;
  const file: KeyRingFile = {
    format: KEY_RING_FORMAT,
    version: 1,
    current: {
      created_at_ms: createdAt,
      x25519_public_key: toBase64(keys.encryption.publicKey),
      x25519_private_key: toBase64(keys.encryption.privateKey),
      ed25519_public_key: toBase64(keys.signing.publicKey),
      ed25519_private_key: toBase64(keys.signing.privateKey),
    },
    retired: ring.retired.map((g) => ({
      created_at_ms: g.createdAt,
      retired_at_ms: g.retiredAt,
      not_after_ms: g.notAfter,
      x25519_public_key: toBase64(g.encryption.publicKey),
      x25519_private_key: toBase64(g.encryption.privateKey),
    })),
  };
  return utf8(`${JSON.stringify(file, null, 2)}\n`);
}

function corrupt(file: string, detail: string): CryptoError {
  return new CryptoError({
    code: 'KEY_STORE_CORRUPT',
    message: `Key store ${file} is corrupt: ${detail}`,
    file,
  });
}

function parseJson(bytes: Uint8Array, file: string): unknown {
  if (bytes.length > KEY_RING_MAX_BYTES) throw corrupt(file, 'too large');
  const text = fromUtf8(bytes);
  if (text === undefined) throw corrupt(file, 'not UTF-8');
  try {
    return JSON.parse(text);
  } catch {
    // JSON.parse messages quote the input, which holds private keys: neither message nor cause is kept.
    throw corrupt(file, 'not JSON');
  }
}

function pairOf(publicB64: string, derived: Uint8Array, file: string, path: string): void {
  const stored = fromBase64(publicB64);
  if (stored === undefined || !stored.every((v, i) => v === derived[i])) {
    throw corrupt(file, `${path} does not match its private key`);
  }
}

// Base64 validity was checked by the schema.
const bytes = (s: string): Uint8Array => fromBase64(s) ?? new Uint8Array(0);

/**
 * Parses a stored key ring.
 *
 * @param file - names the source in errors (a path, or `memory`).
 * @throws {@link index!CryptoError | CryptoError} `KEY_STORE_CORRUPT` with `file`, naming the bad field, never a key.
 */
export function decodeKeyRing(data: Uint8Array, file: string): KeyRing {
  const parsed = KeyRingFileSchema.safeParse(parseJson(data, file));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw corrupt(file, `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  const { current, retired } = parsed.data;
  const keys = keysFromPrivate(bytes(current.x25519_private_key), bytes(current.ed25519_private_key));
  pairOf(current.x25519_public_key, keys.encryption.publicKey, file, 'current.x25519_public_key');
  pairOf(current.ed25519_public_key, keys.signing.publicKey, file, 'current.ed25519_public_key');
  const generations = retired.map((g, i): RetiredKeyGeneration => {
    const encryption: KeyPair = keysFromPrivate(bytes(g.x25519_private_key), new Uint8Array(32)).encryption;
    pairOf(g.x25519_public_key, encryption.publicKey, file, `retired.${i}.x25519_public_key`);
    return { encryption, createdAt: g.created_at_ms, retiredAt: g.retired_at_ms, notAfter: g.not_after_ms };
  });
  try {
    return KeyRing.fromGenerations({ keys, createdAt: current.created_at_ms }, generations);
  } catch (cause) {
    throw new CryptoError({
      code: 'KEY_STORE_CORRUPT',
      message: `Key store ${file} is corrupt: inconsistent generations`,
      file,
      cause,
    });
  }
}
