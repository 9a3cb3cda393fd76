/**
 * Byte layout of `backup_a` / `backup_b`: one private key sealed with
 * AES-256-GCM (WebCrypto) under the Argon2id-derived backup key.
 *
 * Version 2 (written since security issue #17, finding 5), 63 bytes:
 *
 * ```
 * offset  size  field
 *      0     1  version      0x02
 *      1     1  key id       0x01 = X25519 private key (backup_a), 0x02 = Ed25519 seed (backup_b)
 *      2     1  form         0x01 = minimal record, 0x02 = full record
 *      3    12  nonce        random, fresh per field
 *     15    32  ciphertext   the raw 32-byte private key
 *     47    16  tag          GCM tag (128 bits)
 * ```
 *
 * Associated data: `"agent-messaging-sdk/key-backup/v2" ‖ version ‖ key id ‖ form ‖ public_key`,
 * followed in the full form by `signing_public_key`. Both blobs of a full
 * record are thus bound to the form and to both public keys: stripping
 * `backup_b`, `argon2_params` and `signing_public_key` leaves a `backup_a`
 * that says "full" in its header (refused before any derivation), and
 * rewriting that byte breaks the tag.
 *
 * Version 1 (read only), 62 bytes: the same without the form byte; associated
 * data `"agent-messaging-sdk/key-backup/v1" ‖ 0x01 ‖ key id ‖ public key of the slot`
 * (`public_key` for backup_a, `signing_public_key` for backup_b). It binds the
 * slot and its public key but not the form.
 *
 * @module
 */
import { concatBytes, utf8 } from '../../core/encoding.js';

/** Layout version written in byte 0 of new blobs. */
export const BACKUP_BLOB_VERSION = 0x02;
/** The former layout version, still read. */
export const BACKUP_BLOB_VERSION_V1 = 0x01;

/** Which private key a blob holds (byte 1). */
export const BACKUP_KEY_ID = Object.freeze({ x25519: 0x01, ed25519: 0x02 } as const);
/** A key id of {@link BACKUP_KEY_ID}. */
export type BackupKeyId = (typeof BACKUP_KEY_ID)[keyof typeof BACKUP_KEY_ID];

/** The record form a version-2 blob was made for (byte 2). */
export const BACKUP_FORM = Object.freeze({ minimal: 0x01, full: 0x02 } as const);
/** A record form. */
export type BackupForm = keyof typeof BACKUP_FORM;

const NONCE_BYTES = 12;
const KEY_BYTES = 32;
const TAG_BYTES = 16;
const HEADER_BYTES = { 1: 2, 2: 3 } as const;
/** Size of a decoded version-2 backup_a / backup_b: 63 bytes. */
export const BACKUP_BLOB_BYTES = HEADER_BYTES[2] + NONCE_BYTES + KEY_BYTES + TAG_BYTES;
/** Size of a decoded version-1 blob: 62 bytes. */
export const BACKUP_BLOB_V1_BYTES = HEADER_BYTES[1] + NONCE_BYTES + KEY_BYTES + TAG_BYTES;

const DOMAIN = { 1: utf8('agent-messaging-sdk/key-backup/v1'), 2: utf8('agent-messaging-sdk/key-backup/v2') };

/** What a blob is bound to: the record's form and public keys. */
export interface BlobBinding {
  readonly form: BackupForm;
  /** The record's `public_key` (X25519). */
  readonly publicKey: Uint8Array;
  /** The record's `signing_public_key` (full form only). */
  readonly signingPublicKey: Uint8Array | undefined;
}

/** A copy backed by a plain ArrayBuffer, as WebCrypto's typings want. */
export function plainBytes(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes);
}

function associatedData(version: 1 | 2, keyId: BackupKeyId, b: BlobBinding): Uint8Array<ArrayBuffer> {
  if (version === 1) {
    const slotKey = keyId === BACKUP_KEY_ID.x25519 ? b.publicKey : (b.signingPublicKey ?? new Uint8Array(0));
    return plainBytes(concatBytes(DOMAIN[1], Uint8Array.of(BACKUP_BLOB_VERSION_V1, keyId), slotKey));
  }
  const header = Uint8Array.of(BACKUP_BLOB_VERSION, keyId, BACKUP_FORM[b.form]);
  const keys = b.form === 'full' ? [b.publicKey, b.signingPublicKey ?? new Uint8Array(0)] : [b.publicKey];
  return plainBytes(concatBytes(DOMAIN[2], header, ...keys));
}

/** The layout version of a blob (1 or 2) from its size and first byte, or `undefined`. */
export function blobVersion(blob: Uint8Array): 1 | 2 | undefined {
  if (blob.length === BACKUP_BLOB_BYTES && blob[0] === BACKUP_BLOB_VERSION) return 2;
  if (blob.length === BACKUP_BLOB_V1_BYTES && blob[0] === BACKUP_BLOB_VERSION_V1) return 1;
  return undefined;
}

/** The form a version-2 blob says it was made for; `undefined` for version 1 or an unknown byte. */
export function blobForm(blob: Uint8Array): BackupForm | undefined {
  if (blobVersion(blob) !== 2) return undefined;
  if (blob[2] === BACKUP_FORM.full) return 'full';
  return blob[2] === BACKUP_FORM.minimal ? 'minimal' : undefined;
}

/** Byte equality of two public values (not constant-time; never use on secrets). */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * True when `blob` has the size and version of layout 1 or 2, the expected key
 * id, and (version 2) a known form byte.
 */
export function hasBackupHeader(blob: Uint8Array, keyId: BackupKeyId): boolean {
  const version = blobVersion(blob);
  if (version === undefined || blob[1] !== keyId) return false;
  return version === 1 || blobForm(blob) !== undefined;
}

/** Seals one 32-byte private key into the 63-byte version-2 layout, bound to `binding`. */
export async function sealPrivateKey(
  key: CryptoKey,
  keyId: BackupKeyId,
  privateKey: Uint8Array,
  binding: BlobBinding,
): Promise<Uint8Array> {
  const nonce = globalThis.crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  const plaintext = plainBytes(privateKey);
  try {
    const sealed = await globalThis.crypto.subtle.encrypt(
      {
        name: 'AES-GCM',
        iv: nonce,
        additionalData: associatedData(2, keyId, binding),
        tagLength: TAG_BYTES * 8,
      },
      key,
      plaintext,
    );
    const header = Uint8Array.of(BACKUP_BLOB_VERSION, keyId, BACKUP_FORM[binding.form]);
    return concatBytes(header, nonce, new Uint8Array(sealed));
  } finally {
    plaintext.fill(0);
  }
}

/**
 * Opens a blob of either version; `undefined` when the header is wrong or the
 * tag does not verify (wrong password, altered field, another form, or the
 * wrong public keys).
 */
export async function openPrivateKey(
  key: CryptoKey,
  keyId: BackupKeyId,
  blob: Uint8Array,
  binding: BlobBinding,
): Promise<Uint8Array | undefined> {
  const version = blobVersion(blob);
  if (version === undefined || !hasBackupHeader(blob, keyId)) return undefined;
  const headerBytes = HEADER_BYTES[version];
  const nonce = plainBytes(blob.subarray(headerBytes, headerBytes + NONCE_BYTES));
  const sealed = plainBytes(blob.subarray(headerBytes + NONCE_BYTES));
  try {
    const opened = await globalThis.crypto.subtle.decrypt(
      {
        name: 'AES-GCM',
        iv: nonce,
        additionalData: associatedData(version, keyId, binding),
        tagLength: TAG_BYTES * 8,
      },
      key,
      sealed,
    );
    return new Uint8Array(opened);
  } catch {
    return undefined;
  }
}
