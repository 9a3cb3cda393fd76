/**
 * Sending a file from the console: the file is encrypted in the page as AMSF
 * v1 (a fresh 32-byte key and 7-byte nonce prefix, 64 KiB chunks, each
 * sealed with WebCrypto's AES-GCM under the header as AAD, the chunk counter
 * and last flag in the nonce: the construction `agent.files` uses), uploaded
 * as ciphertext followed by its SHA-256 (`POST /conversations/:id/files`),
 * and announced with a sealed `file` message. The key travels only inside
 * that sealed message.
 *
 * @module
 */
import { toBase64 } from 'agent-messaging-sdk/protocol';
import { FILE_MAX_BYTES } from 'agent-messaging-sdk/protocol';
import { FILE_FORMAT, type FilePayload } from 'agent-messaging-sdk/protocol';
import { portableBackend } from 'agent-messaging-sdk/protocol';
import {
  chunkCount,
  chunkNonce,
  ciphertextSize,
  DEFAULT_CHUNK_SIZE,
  encodeFileHeader,
  FILE_KEY_BYTES,
  NONCE_PREFIX_BYTES,
} from 'agent-messaging-sdk/protocol';

/** An encrypted file, ready to upload. */
export interface EncryptedFile {
  /** Header and sealed chunks (AMSF v1). */
  readonly object: Uint8Array;
  readonly key: Uint8Array;
  readonly chunkSize: number;
  /** Lower-case hex SHA-256 of `object`. */
  readonly sha256: string;
}

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

/**
 * Encrypts `plain` as AMSF v1 with WebCrypto.
 *
 * @throws RangeError above the service's 100 MB file limit (nothing is encrypted).
 */
export async function encryptFile(plain: Uint8Array, chunkSize = DEFAULT_CHUNK_SIZE): Promise<EncryptedFile> {
  if (plain.length > FILE_MAX_BYTES)
    throw new RangeError(`The file is larger than the service's ${FILE_MAX_BYTES} bytes.`);
  const key = crypto.getRandomValues(new Uint8Array(FILE_KEY_BYTES));
  const header = encodeFileHeader(chunkSize, crypto.getRandomValues(new Uint8Array(NONCE_PREFIX_BYTES)));
  const prefix = header.subarray(9, 9 + NONCE_PREFIX_BYTES);
  const object = new Uint8Array(ciphertextSize(plain.length, chunkSize));
  object.set(header, 0);
  const n = chunkCount(plain.length, chunkSize);
  let at = header.length;
  for (let i = 0; i < n; i++) {
    const chunk = plain.subarray(i * chunkSize, Math.min(plain.length, (i + 1) * chunkSize));
    const sealed = await portableBackend.async.aesGcmEncrypt(
      key,
      chunkNonce(prefix, i, i === n - 1),
      chunk,
      header,
    );
    object.set(sealed, at);
    at += sealed.length;
  }
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', object as Uint8Array<ArrayBuffer>));
  return { object, key, chunkSize, sha256: hex(digest) };
}

/** The upload body: the ciphertext followed by its 32-byte SHA-256. */
export function uploadBody(file: EncryptedFile): Uint8Array {
  const body = new Uint8Array(file.object.length + 32);
  body.set(file.object, 0);
  for (let i = 0; i < 32; i++)
    body[file.object.length + i] = parseInt(file.sha256.slice(2 * i, 2 * i + 2), 16);
  return body;
}

/** What the service answers an upload (wire names). */
export interface UploadAnswer {
  readonly object_key: string;
  readonly size: number;
  readonly sha256: string;
}

/**
 * The `file` payload of an uploaded file, once the service's answer is
 * checked against what was sent.
 *
 * @throws Error when the service stored another size or hash than the one sent.
 */
export function filePayload(
  file: EncryptedFile,
  answer: UploadAnswer,
  meta: { readonly name: string; readonly contentType: string; readonly size: number },
): FilePayload {
  if (answer.size !== file.object.length || answer.sha256 !== file.sha256)
    throw new Error('The service stored another ciphertext than the one sent (size or SHA-256).');
  return {
    type: 'file',
    format: FILE_FORMAT,
    object_key: answer.object_key,
    name: meta.name,
    content_type: meta.contentType,
    size: meta.size,
    chunk_size: file.chunkSize,
    ciphertext_size: file.object.length,
    ciphertext_sha256: file.sha256,
    key: toBase64(file.key),
  };
}
