/**
 * Byte layout of `backup_a` / `backup_b`: one private key sealed with
 * AES-256-GCM (WebCrypto) under the Argon2id-derived backup key.
 *
 * ```
 * offset  size  field
 *      0     1  version      0x01
 *      1     1  key id       0x01 = X25519 private key (backup_a), 0x02 = Ed25519 seed (backup_b)
 *      2    12  nonce        random, fresh per field
 *     14    32  ciphertext   the raw 32-byte private key
 *     46    16  tag          GCM tag (128 bits)
 * ```
 *
 * 62 bytes in all, sent as 84 characters of padded base64. The associated
 * data is `"agent-messaging-sdk/key-backup/v1" || version || key id || public key`
 * (the record's `public_key` for backup_a, `signing_public_key` for backup_b),
 * so a field moved to the other slot, or paired with another public key,
 * fails to open.
 *
 * @module
 */
import { concatBytes, utf8 } from '../../core/encoding.js';

/** Layout version written in byte 0. */
export const BACKUP_BLOB_VERSION = 0x01;

/** Which private key a blob holds (byte 1). */
export const BACKUP_KEY_ID = Object.freeze({ x25519: 0x01, ed25519: 0x02 } as const);
/** A key id of {@link BACKUP_KEY_ID}. */
export type BackupKeyId = (typeof BACKUP_KEY_ID)[keyof typeof BACKUP_KEY_ID];

const HEADER_BYTES = 2;
const NONCE_BYTES = 12;
const KEY_BYTES = 32;
const TAG_BYTES = 16;
/** Size of a decoded backup_a / backup_b: 62 bytes. */
export const BACKUP_BLOB_BYTES = HEADER_BYTES + NONCE_BYTES + KEY_BYTES + TAG_BYTES;

const DOMAIN = utf8('agent-messaging-sdk/key-backup/v1');

/** A copy backed by a plain ArrayBuffer, as WebCrypto's typings want. */
export function plainBytes(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes);
}

function associatedData(keyId: BackupKeyId, publicKey: Uint8Array): Uint8Array<ArrayBuffer> {
  return plainBytes(concatBytes(DOMAIN, Uint8Array.of(BACKUP_BLOB_VERSION, keyId), publicKey));
}

/** Byte equality of two public values (not constant-time; never use on secrets). */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** True when `blob` has the layout's size, version and the expected key id. */
export function hasBackupHeader(blob: Uint8Array, keyId: BackupKeyId): boolean {
  return blob.length === BACKUP_BLOB_BYTES && blob[0] === BACKUP_BLOB_VERSION && blob[1] === keyId;
}

/** Seals one 32-byte private key into the 62-byte layout. */
export async function sealPrivateKey(
  key: CryptoKey,
  keyId: BackupKeyId,
  privateKey: Uint8Array,
  publicKey: Uint8Array,
): Promise<Uint8Array> {
  const nonce = globalThis.crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  const plaintext = plainBytes(privateKey);
  try {
    const sealed = await globalThis.crypto.subtle.encrypt(
      {
        name: 'AES-GCM',
        iv: nonce,
        additionalData: associatedData(keyId, publicKey),
        tagLength: TAG_BYTES * 8,
      },
      key,
      plaintext,
    );
    return concatBytes(Uint8Array.of(BACKUP_BLOB_VERSION, keyId), nonce, new Uint8Array(sealed));
  } finally {
    plaintext.fill(0);
  }
}

/**
 * Opens a blob; `undefined` when the header is wrong or the tag does not
 * verify (wrong password, altered field, or the wrong public key).
 */
export async function openPrivateKey(
  key: CryptoKey,
  keyId: BackupKeyId,
  blob: Uint8Array,
  publicKey: Uint8Array,
): Promise<Uint8Array | undefined> {
  if (!hasBackupHeader(blob, keyId)) return undefined;
  const nonce = plainBytes(blob.subarray(HEADER_BYTES, HEADER_BYTES + NONCE_BYTES));
  const sealed = plainBytes(blob.subarray(HEADER_BYTES + NONCE_BYTES));
  try {
    const opened = await globalThis.crypto.subtle.decrypt(
      {
        name: 'AES-GCM',
        iv: nonce,
        additionalData: associatedData(keyId, publicKey),
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
