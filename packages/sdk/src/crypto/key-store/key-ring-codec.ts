/**
 * The stored form of a {@link KeyRing}: UTF-8 JSON, versioned, with a
 * SHA-256 checksum over everything else.
 *
 * ```json
 * {
 *   "format": "agent-messaging-sdk/key-ring",
 *   "version": 2,
 *   "current": { "created_at_ms": 0, "x25519_public_key": "…", "x25519_private_key": "…",
 *                "ed25519_public_key": "…", "ed25519_private_key": "…" },
 *   "retired": [ { "created_at_ms": 0, "retired_at_ms": 0, "not_after_ms": 0,
 *                  "x25519_public_key": "…", "x25519_private_key": "…" } ],
 *   "sha256": "<64 lowercase hex>"
 * }
 * ```
 *
 * `sha256` is SHA-256 of the canonical encoding of the file without it
 * (`JSON.stringify(body, null, 2) + "\n"`, fields in the order above), and the
 * file must be byte for byte the canonical encoding of what it holds. So a
 * change anywhere is caught: a changed value breaks the checksum, a changed
 * checksum no longer matches, and a change that leaves the same values (say,
 * whitespace) breaks the canonical form. Keys are padded base64 of the raw 32
 * bytes; decoding also re-derives every public key from its private key.
 *
 * Version 1 (the same without `sha256`) is still read, as a legacy file: see
 * {@link decodeKeyRingFile}.
 *
 * @module
 */
import * as z from '../../core/lazy-zod.js';
import { fromBase64, fromUtf8, toBase64, utf8 } from '../../core/encoding.js';
import { CryptoError } from '../../core/errors/crypto-error.js';
import { defaultBackend } from '../backend/node-default.js';
import { keysFromPrivate, type KeyPair } from '../keys.js';
import { KeyRing, type RetiredKeyGeneration } from './key-ring.js';

/** Value of the file's `format` field. */
export const KEY_RING_FORMAT = 'agent-messaging-sdk/key-ring';
/** Version of the files {@link encodeKeyRing} writes (with a checksum). Version 1 is read as legacy. */
export const KEY_RING_VERSION = 2;
/** Largest stored key ring read, in bytes; a larger file is corrupt. */
export const KEY_RING_MAX_BYTES = 1_048_576;

const rawKey = z
  .string()
  .max(64)
  .refine((s) => fromBase64(s)?.length === 32, { message: 'must be padded base64 of 32 bytes' });
const timeMs = z.int().min(0);

const currentGeneration = z.strictObject({
  created_at_ms: timeMs,
  x25519_public_key: rawKey,
  x25519_private_key: rawKey,
  ed25519_public_key: rawKey,
  ed25519_private_key: rawKey,
});
const retiredGenerations = z
  .array(
    z.strictObject({
      created_at_ms: timeMs,
      retired_at_ms: timeMs,
      not_after_ms: timeMs,
      x25519_public_key: rawKey,
      x25519_private_key: rawKey,
    }),
  )
  .max(1000);

/** The stored key ring, version 2 (file field names); `sha256` covers everything else. */
export const KeyRingFileSchema = z.strictObject({
  format: z.literal(KEY_RING_FORMAT),
  version: z.literal(KEY_RING_VERSION),
  current: currentGeneration,
  retired: retiredGenerations,
  sha256: z.string().regex(/^[0-9a-f]{64}$/, { message: 'must be 64 lowercase hex digits' }),
});
/** The stored key ring, version 2. */
export type KeyRingFile = z.output<typeof KeyRingFileSchema>;

/** The legacy stored key ring, version 1: as version 2 without `sha256`. Read, never written. */
export const LegacyKeyRingFileSchema = z.strictObject({
  format: z.literal(KEY_RING_FORMAT),
  version: z.literal(1),
  current: currentGeneration,
  retired: retiredGenerations,
});
/** The legacy stored key ring, version 1. */
export type LegacyKeyRingFile = z.output<typeof LegacyKeyRingFileSchema>;

type Body = Omit<KeyRingFile, 'sha256'>;

/** The canonical body: fields in schema order, whatever order the input had. */
function bodyOf(file: Omit<KeyRingFile | LegacyKeyRingFile, 'version' | 'sha256'>): Body {
  const c = file.current;
  return {
    format: KEY_RING_FORMAT,
    version: KEY_RING_VERSION,
    current: {
      created_at_ms: c.created_at_ms,
      x25519_public_key: c.x25519_public_key,
      x25519_private_key: c.x25519_private_key,
      ed25519_public_key: c.ed25519_public_key,
      ed25519_private_key: c.ed25519_private_key,
    },
    retired: file.retired.map((g) => ({
      created_at_ms: g.created_at_ms,
      retired_at_ms: g.retired_at_ms,
      not_after_ms: g.not_after_ms,
      x25519_public_key: g.x25519_public_key,
      x25519_private_key: g.x25519_private_key,
    })),
  };
}

const pretty = (value: unknown): Uint8Array => utf8(`${JSON.stringify(value, null, 2)}\n`);

/** Lowercase hex SHA-256 of the canonical encoding of `body`. */
function checksumOf(body: Body): string {
  const bytes = pretty(body);
  try {
    let out = '';
    for (const b of defaultBackend().sha256(bytes)) out += b.toString(16).padStart(2, '0');
    return out;
  } finally {
    bytes.fill(0);
  }
}

/** The canonical file bytes of `body`, checksum `sha256` appended. */
const fileBytes = (body: Body, sha256: string): Uint8Array => pretty({ ...body, sha256 });

/** Serialises a ring to its stored form, version 2 (contains private keys: write it only to a protected place). */
export function encodeKeyRing(ring: KeyRing): Uint8Array {
  const { keys, createdAt } = ring.current;
  const body = bodyOf({
    format: KEY_RING_FORMAT,
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
  });
  return fileBytes(body, checksumOf(body));
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

function validate<T>(schema: z.ZodType<T>, value: unknown, file: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw corrupt(file, `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((v, i) => v === b[i]);

/** Checks the checksum and the canonical form of a version 2 file. */
function verify(data: Uint8Array, stored: KeyRingFile, file: string): void {
  const body = bodyOf(stored);
  if (checksumOf(body) !== stored.sha256) throw corrupt(file, 'checksum mismatch');
  const canonical = fileBytes(body, stored.sha256);
  try {
    if (!sameBytes(canonical, data)) throw corrupt(file, 'not in canonical form');
  } finally {
    canonical.fill(0);
  }
}

function pairOf(publicB64: string, derived: Uint8Array, file: string, path: string): void {
  const stored = fromBase64(publicB64);
  if (stored === undefined || !sameBytes(stored, derived)) {
    throw corrupt(file, `${path} does not match its private key`);
  }
}

// Base64 validity was checked by the schema.
const bytes = (s: string): Uint8Array => fromBase64(s) ?? new Uint8Array(0);

function ringOf(stored: KeyRingFile | LegacyKeyRingFile, file: string): KeyRing {
  const { current, retired } = stored;
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

/** A decoded key file: the ring, and whether a checksum vouched for it. */
export interface DecodedKeyRing {
  /** The stored ring, exactly as stored (nothing pruned). */
  readonly ring: KeyRing;
  /**
   * True for a version 1 file (no checksum): its keys were checked against
   * their public keys, but its times could not be verified. Do not erase a
   * key on the strength of them; rewrite the file (as version 2) instead.
   */
  readonly legacy: boolean;
}

/**
 * Parses a stored key ring, version 2 (checksum and canonical form
 * verified) or version 1 (legacy, no checksum; reported as `legacy`).
 *
 * @param file - names the source in errors (a path, or `memory`).
 * @throws {@link index!CryptoError | CryptoError} `KEY_STORE_CORRUPT` with `file`, naming the bad field, never a key.
 * @example
 * ```ts
 * const { ring, legacy } = decodeKeyRingFile(bytes, '/var/lib/agent/keys/keys.json');
 * ```
 */
export function decodeKeyRingFile(data: Uint8Array, file: string): DecodedKeyRing {
  const value = parseJson(data, file);
  const version = (value as { version?: unknown } | null)?.version;
  if (version === 1) {
    return { ring: ringOf(validate(LegacyKeyRingFileSchema, value, file), file), legacy: true };
  }
  const stored = validate(KeyRingFileSchema, value, file);
  verify(data, stored, file);
  return { ring: ringOf(stored, file), legacy: false };
}

/**
 * Parses a stored key ring (see {@link decodeKeyRingFile}; a legacy version 1
 * file is accepted too).
 *
 * @param file - names the source in errors (a path, or `memory`).
 * @throws {@link index!CryptoError | CryptoError} `KEY_STORE_CORRUPT` with `file`, naming the bad field, never a key.
 */
export function decodeKeyRing(data: Uint8Array, file: string): KeyRing {
  return decodeKeyRingFile(data, file).ring;
}
