/**
 * Receiving one file upload: the body is the ciphertext followed by its
 * 32-byte SHA-256 (the client's declaration, known only once it has
 * encrypted the last byte). The server writes the ciphertext to disk as it
 * arrives, hashing it, keeps the last 32 bytes back, and compares them with
 * the hash at the end. Over the cap at any point: FILE_TOO_LARGE.
 *
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { maxCiphertextSize } from 'agent-messaging-sdk/protocol';
import type { ServerContext } from '../context.js';
import { fail, invalidRequest } from '../http/failure.js';
import type { RequestBodyStream } from '../http/types.js';
import { fileObjectsOf, type FileObject } from './file-objects.js';

/** Length of the SHA-256 that ends an upload body. */
export const UPLOAD_DIGEST_BYTES = 32;
/** Shortest ciphertext of the format (header + one empty last chunk). */
const MIN_CIPHERTEXT_BYTES = 32;

/** The largest upload body the server accepts: ciphertext of the largest file plus the digest. */
export function uploadBodyCap(ctx: ServerContext): number {
  return maxCiphertextSize(ctx.options.maxFileBytes) + UPLOAD_DIGEST_BYTES;
}

function tooLarge(ctx: ServerContext): Error {
  return fail('FILE_TOO_LARGE', `The file is larger than ${ctx.options.maxFileBytes} bytes.`, {
    max_bytes: ctx.options.maxFileBytes,
    max_upload_bytes: uploadBodyCap(ctx),
  });
}

/**
 * Refuses a declared Content-Length above the cap before a byte is read.
 *
 * @throws {@link ServerFailure} FILE_TOO_LARGE.
 */
export function checkDeclaredLength(ctx: ServerContext, contentLength: string | undefined): void {
  if (contentLength === undefined) return;
  const n = Number(contentLength);
  if (Number.isFinite(n) && n > uploadBodyCap(ctx)) throw tooLarge(ctx);
}

/** What {@link receiveUpload} stores with the object. */
export interface UploadTarget {
  readonly conversationId: string;
  readonly uploaderId: string;
}

/**
 * Streams `body` to a new object and checks it.
 *
 * @throws {@link ServerFailure} FILE_TOO_LARGE (while streaming), SHA256_MISMATCH,
 * VALIDATION_ERROR (`body_too_short`, `body_incomplete`). A refused upload leaves nothing behind.
 */
export async function receiveUpload(
  ctx: ServerContext,
  body: RequestBodyStream,
  target: UploadTarget,
): Promise<FileObject> {
  const cap = uploadBodyCap(ctx);
  const pending = await fileObjectsOf(ctx).create();
  const hash = createHash('sha256');
  let tail = new Uint8Array(0);
  let total = 0;
  const emit = async (bytes: Uint8Array): Promise<void> => {
    if (bytes.length === 0) return;
    hash.update(bytes);
    await pending.write(bytes);
  };
  try {
    for (let piece = await body.read(); piece !== undefined; piece = await body.read()) {
      total += piece.length;
      if (total > cap) throw tooLarge(ctx);
      // Everything but the last 32 bytes seen so far is ciphertext.
      if (piece.length >= UPLOAD_DIGEST_BYTES) {
        await emit(tail);
        await emit(piece.subarray(0, piece.length - UPLOAD_DIGEST_BYTES));
        tail = piece.slice(piece.length - UPLOAD_DIGEST_BYTES);
      } else {
        const joined = new Uint8Array(tail.length + piece.length);
        joined.set(tail, 0);
        joined.set(piece, tail.length);
        await emit(joined.subarray(0, Math.max(0, joined.length - UPLOAD_DIGEST_BYTES)));
        tail = joined.slice(Math.max(0, joined.length - UPLOAD_DIGEST_BYTES));
      }
    }
    if (!body.complete) throw invalidRequest('body_incomplete', 'The upload ended early.');
    const size = total - UPLOAD_DIGEST_BYTES;
    if (size < MIN_CIPHERTEXT_BYTES) {
      throw invalidRequest(
        'body_too_short',
        'The upload is shorter than the smallest encrypted file plus its SHA-256.',
      );
    }
    const digest = hash.digest();
    if (!timingSafeEqual(digest, tail)) {
      throw fail(
        'SHA256_MISMATCH',
        'The SHA-256 of the uploaded ciphertext does not match the declared one.',
      );
    }
    return await pending.commit({
      conversationId: target.conversationId,
      uploaderId: target.uploaderId,
      size,
      sha256: digest.toString('hex'),
      createdAtMs: ctx.clock.now(),
    });
  } catch (err) {
    await pending.discard();
    throw err;
  }
}
