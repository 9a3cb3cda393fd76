/**
 * Uploading one file: encrypt the source chunk by chunk, hash the
 * ciphertext as it goes out, end the body with that hash, stream it to
 * `POST /conversations/:id/files` behind the client-side upload limiter, and
 * build the `file` payload from what the service stored.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import * as z from '../core/lazy-zod.js';
import { ValidationError } from '../core/errors/validation-error.js';
import { TransportError } from '../core/errors/transport-error.js';
import { FILE_MAX_BYTES } from '../core/limits/objects.js';
import { FILE_FORMAT, type FilePayload } from '../core/protocol/file-payload.js';
import { parseWith } from '../core/protocol/parse.js';
import { FILE_ROUTES, routePath } from '../core/protocol/service-names.js';
import { toBase64 } from '../core/encoding.js';
import { createFileEncryptionParams, FileEncryptor } from '../crypto/file-stream/encrypt.js';
import { ciphertextSize, DEFAULT_CHUNK_SIZE } from '../crypto/file-stream/format.js';
import type { RestClient } from '../transport/rest/client.js';
import { bytesOnly, openSource, type FileSource } from './sources.js';

/** Length of the SHA-256 that ends an upload body. */
const UPLOAD_DIGEST_BYTES = 32;

/** Options of an upload. */
export interface FileUploadOptions {
  /** The file's name as recipients see it. @defaultValue the path's base name, else `file` */
  name?: string;
  /** Media type of the plaintext. @defaultValue `application/octet-stream` */
  contentType?: string;
  /** Plaintext bytes per chunk (16 KiB to 4 MiB). @defaultValue `65536` */
  chunkSize?: number;
  /** Aborts the upload; its reason is rethrown. */
  signal?: AbortSignal;
}

/** Answer of the upload route (wire field names). */
export const FileUploadResultSchema = z.looseObject({
  object_key: z.string().min(1),
  size: z.int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

async function readJson(body: AsyncIterable<Uint8Array>): Promise<unknown> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch (cause) {
    throw new TransportError({
      code: 'TRANSPORT_BAD_RESPONSE',
      message: 'The upload answer is not JSON.',
      cause,
    });
  }
}

/**
 * Encrypts and uploads `source` into `conversationId`; returns the `file`
 * payload to send (not sent here).
 *
 * @throws {@link ValidationError} for a bad source or option, or a file above 100 MB (reason
 * `file_too_large`, before any request when the size is known);
 * {@link ServiceError} `NOT_CONVERSATION_MEMBER_UPLOAD`, `FILE_TOO_LARGE`, `SHA256_MISMATCH`;
 * {@link RateLimitError} `FILE_UPLOAD_RATE_LIMITED`; {@link TransportError}; the signal's reason.
 */
export async function uploadFile(
  rest: RestClient,
  conversationId: string,
  source: FileSource,
  options: FileUploadOptions = {},
): Promise<FilePayload> {
  const opened = await openSource(source);
  if (opened.size !== undefined && opened.size > FILE_MAX_BYTES) {
    throw new ValidationError({
      message: `The file is larger than ${FILE_MAX_BYTES} bytes.`,
      params: { reason: 'file_too_large', max_bytes: FILE_MAX_BYTES, size: opened.size },
    });
  }
  const params = createFileEncryptionParams(options.chunkSize ?? DEFAULT_CHUNK_SIZE);
  const hash = createHash('sha256');
  let sent = 0;
  let plaintextSize = 0;
  let ourSha256 = '';
  const expectedCiphertext =
    opened.size === undefined ? undefined : ciphertextSize(opened.size, params.chunkSize);
  async function* body(): AsyncGenerator<Uint8Array> {
    const encryptor = new FileEncryptor(params, { maxBytes: FILE_MAX_BYTES });
    for await (const piece of bytesOnly(opened.pieces)) {
      for (const sealed of encryptor.push(piece)) {
        hash.update(sealed);
        sent += sealed.length;
        yield sealed;
      }
    }
    for (const sealed of encryptor.end()) {
      hash.update(sealed);
      sent += sealed.length;
      yield sealed;
    }
    plaintextSize = encryptor.plaintextSize;
    const digest = hash.digest();
    ourSha256 = digest.toString('hex');
    yield digest;
  }
  const res = await rest.stream({
    method: 'POST',
    path: routePath(FILE_ROUTES.uploadFile, { id: conversationId }),
    body: body(),
    contentType: 'application/octet-stream',
    ...(opened.size === undefined ? {} : { contentLength: (expectedCiphertext ?? 0) + UPLOAD_DIGEST_BYTES }),
    limiter: 'files',
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const json = (await readJson(res.body)) as { data?: unknown } | null;
  const answer = parseWith(FileUploadResultSchema, json?.data, 'upload answer');
  if (answer.sha256 !== ourSha256 || answer.size !== sent) {
    throw new TransportError({
      code: 'TRANSPORT_BAD_RESPONSE',
      message: 'The service stored a different ciphertext than the one sent (size or SHA-256).',
    });
  }
  return {
    type: 'file',
    format: FILE_FORMAT,
    object_key: answer.object_key,
    name: options.name ?? opened.name ?? 'file',
    content_type: options.contentType ?? 'application/octet-stream',
    size: plaintextSize,
    chunk_size: params.chunkSize,
    ciphertext_size: sent,
    ciphertext_sha256: answer.sha256,
    key: toBase64(params.key),
  };
}
