/**
 * Downloading one file: `GET /r2/<object_key>` behind the object-fetch
 * limiter, read as a stream, hashed and decrypted as it arrives. The last
 * chunk is released only after the ciphertext's SHA-256 and size matched the
 * `file` payload, so a consumer that reads to the end has a verified file.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { fromBase64 } from '../core/encoding.js';
import { FileIntegrityError } from '../core/errors/file-integrity-error.js';
import { ValidationError } from '../core/errors/validation-error.js';
import { parseFilePayload, type FilePayload } from '../core/protocol/file-payload.js';
import { FileDecryptor } from '../crypto/file-stream/decrypt.js';
import type { RestClient } from '../transport/rest/client.js';
import { objectKeyPath } from '../transport/rest/paths.js';
import { forEachPiece } from './body-pieces.js';
import { writeBatchesToFile } from './write-file.js';

/** Options of a download. */
export interface FileDownloadOptions {
  /** Aborts the download; its reason is rethrown. */
  signal?: AbortSignal;
}

/** A file being downloaded: read it once, as a stream or with one of the helpers. */
export interface FileDownload {
  /** The validated `file` payload. */
  readonly file: FilePayload;
  /** `file.name`. */
  readonly name: string;
  /** `file.size` (plaintext bytes). */
  readonly size: number;
  /** `file.content_type`. */
  readonly contentType: string;
  /**
   * The plaintext, chunk by chunk. Fails with {@link FileIntegrityError} on
   * any tampering; nothing after a failed check is released, and the end is
   * only reached once the ciphertext's SHA-256 matched.
   */
  stream(): AsyncIterable<Uint8Array>;
  /** The plaintext as a web `ReadableStream`. */
  readableStream(): ReadableStream<Uint8Array>;
  /** Reads the whole plaintext into memory (use {@link FileDownload.toFile} for large files). */
  toBytes(): Promise<Uint8Array>;
  /**
   * Writes the plaintext to `path`: to `path.part` first, renamed once every
   * check passed; on failure the partial file is removed.
   */
  toFile(path: string): Promise<void>;
}

/**
 * Checks the ciphertext as it arrives (size within the declared one, SHA-256
 * at the end) and decrypts it: one synchronous step per network piece, no
 * generator between the socket and the plaintext.
 */
class VerifyingDecryptor {
  readonly #file: FilePayload;
  readonly #hash = createHash('sha256');
  readonly #decryptor: FileDecryptor;
  #total = 0;

  constructor(file: FilePayload, key: Uint8Array) {
    this.#file = file;
    this.#decryptor = new FileDecryptor(key, { chunkSize: file.chunk_size, size: file.size });
  }

  /** Plaintext of the chunks completed by `piece` (never the last). */
  push(piece: Uint8Array): Uint8Array[] {
    this.#total += piece.length;
    if (this.#total > this.#file.ciphertext_size) {
      throw new FileIntegrityError({
        failure: 'size',
        message: 'The object is larger than the declared ciphertext size.',
      });
    }
    this.#hash.update(piece);
    return this.#decryptor.push(piece);
  }

  /** The last chunk's plaintext, released only once the size and the SHA-256 matched. */
  end(): Uint8Array[] {
    if (this.#total !== this.#file.ciphertext_size) {
      throw new FileIntegrityError({
        failure: 'truncated',
        message: 'The object is shorter than the declared ciphertext size.',
      });
    }
    if (this.#hash.digest('hex') !== this.#file.ciphertext_sha256) {
      throw new FileIntegrityError({
        failure: 'sha256',
        message: "The object's SHA-256 differs from the declared one.",
      });
    }
    return this.#decryptor.end();
  }
}

/** The verified plaintext of `body`, one yield per plaintext piece. */
async function* plaintextOf(
  body: AsyncIterable<Uint8Array>,
  file: FilePayload,
  key: Uint8Array,
): AsyncGenerator<Uint8Array> {
  const verifier = new VerifyingDecryptor(file, key);
  for await (const piece of body) {
    for (const plain of verifier.push(piece)) yield plain;
  }
  yield* verifier.end();
}

/**
 * Starts downloading the file of `payload`.
 *
 * @throws {@link ValidationError} when `payload` is not a valid `file` payload;
 * {@link ServiceError} (`NOT_FOUND` for an unknown object or a non-member) / {@link RateLimitError};
 * {@link TransportError}; the signal's reason. Reading the result can throw {@link FileIntegrityError}.
 */
export async function downloadFile(
  rest: RestClient,
  payload: unknown,
  options: FileDownloadOptions = {},
): Promise<FileDownload> {
  const file = parseFilePayload(payload);
  const key = fromBase64(file.key);
  if (key === undefined) throw new ValidationError({ message: 'Invalid file key.' });
  const res = await rest.stream({
    method: 'GET',
    path: objectKeyPath(file.object_key),
    accept: 'application/octet-stream',
    limiter: 'objects',
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const declared = res.headers['content-length'];
  if (declared !== undefined && Number(declared) !== file.ciphertext_size) {
    res.cancel();
    throw new FileIntegrityError({
      failure: 'size',
      message: 'The object size differs from the declared ciphertext size.',
    });
  }
  let used = false;
  const stream = (): AsyncIterable<Uint8Array> => {
    if (used) throw new ValidationError({ message: 'A download can be read once.' });
    used = true;
    return plaintextOf(res.body, file, key);
  };
  return {
    file,
    name: file.name,
    size: file.size,
    contentType: file.content_type,
    stream,
    readableStream: () => Readable.toWeb(Readable.from(stream())) as ReadableStream<Uint8Array>,
    async toBytes() {
      const out = new Uint8Array(file.size);
      let at = 0;
      for await (const piece of stream()) {
        out.set(piece, at);
        at += piece.length;
      }
      return out;
    },
    async toFile(path) {
      if (used) throw new ValidationError({ message: 'A download can be read once.' });
      used = true;
      const part = `${path}.part`;
      try {
        const verifier = new VerifyingDecryptor(file, key);
        await writeBatchesToFile(part, async (writer) => {
          await forEachPiece(res.body, (piece) => writer.add(verifier.push(piece)));
          const due = writer.add(verifier.end());
          if (due !== undefined) await due;
        });
        await rename(part, path);
      } catch (err) {
        await rm(part, { force: true });
        throw err;
      }
    },
  };
}
