/**
 * The backup key: Argon2id (hash-wasm, RFC 9106) over the protection
 * password and the record's 32-byte salt gives 32 bytes, imported as a
 * non-extractable WebCrypto AES-256-GCM key.
 *
 * The password is NFC-normalised before UTF-8 encoding, so the same password
 * typed on two platforms derives the same key. It never leaves this module:
 * it is not logged, not stored and not sent anywhere.
 *
 * hash-wasm is imported on the first derivation, not with the SDK: only key
 * backup and restore use it (docs/performance.md, import time).
 *
 * @module
 */
import { utf8 } from '../../core/encoding.js';
import { CryptoError } from '../../core/errors/crypto-error.js';
import type { Argon2Params } from '../../core/protocol/key-backup.js';
import { plainBytes } from './layout.js';

const DERIVED_KEY_BYTES = 32;

async function runArgon2id(
  password: Uint8Array,
  salt: Uint8Array,
  params: Argon2Params,
): Promise<Uint8Array> {
  const { argon2id } = await import('./argon2id.js');
  try {
    return await argon2id({
      password,
      salt,
      iterations: params.t,
      parallelism: params.p,
      memorySize: params.m,
      hashLength: DERIVED_KEY_BYTES,
      outputType: 'binary',
    });
  } catch (cause) {
    // E.g. WebAssembly memory could not grow; the cause carries no secret.
    throw new CryptoError({ code: 'KEY_BACKUP_INVALID', message: 'Argon2id derivation failed', cause });
  }
}

/**
 * Derives the AES-256-GCM backup key from a password, a salt and Argon2id parameters.
 *
 * @throws {@link CryptoError} `KEY_BACKUP_INVALID` when Argon2id itself fails (for example out of memory).
 */
export async function deriveBackupKey(
  password: string,
  salt: Uint8Array,
  params: Argon2Params,
): Promise<CryptoKey> {
  const passwordBytes = utf8(password.normalize('NFC'));
  let raw: Uint8Array<ArrayBuffer> | undefined;
  try {
    const derived = await runArgon2id(passwordBytes, salt, params);
    raw = plainBytes(derived);
    derived.fill(0);
    return await globalThis.crypto.subtle.importKey('raw', raw, { name: 'AES-GCM' }, false, [
      'encrypt',
      'decrypt',
    ]);
  } finally {
    // Best effort: JS gives no guarantee, but we do not keep secrets around longer than needed.
    passwordBytes.fill(0);
    raw?.fill(0);
  }
}
