/**
 * `agent.files` and `userClient.files`: upload a file into a conversation
 * (encrypted on this side, the key sent inside an ordinary sealed `file`
 * message) and download the file of a received `file` payload.
 *
 * @module
 */
import type { FilePayload } from '../core/protocol/file-payload.js';
import type { RestClient } from '../transport/rest/client.js';
import { downloadFile, type FileDownload, type FileDownloadOptions } from './download.js';
import type { FileSource } from './sources.js';
import { uploadFile, type FileUploadOptions } from './upload.js';

/** What {@link FileTransfer} needs from its owner. */
export interface FileTransferDeps {
  /** The owner's REST client (its bearer token, limiters and dispatcher). */
  readonly rest: () => RestClient;
  /** Seals and sends a payload into a conversation; resolves with the owner's send result. */
  readonly send: (conversationId: string, payload: FilePayload) => Promise<unknown>;
  /** Runs one upload (encrypt, upload, send) under the owner's observers, if any. */
  readonly observe?: <T>(conversationId: string, run: () => Promise<T>) => Promise<T>;
}

/** The result of `files.upload()` (on the Agent and the UserClient). */
export interface SentFile<R = unknown> {
  /** The `file` payload that was sent (it holds the file key: keep it private). */
  readonly file: FilePayload;
  /** What sending the `file` message returned. */
  readonly sent: R;
}

/** Encrypted file transfer for one agent or user. */
export class FileTransfer<R = unknown> {
  readonly #deps: FileTransferDeps;

  /** @internal */
  constructor(deps: FileTransferDeps) {
    this.#deps = deps;
  }

  /**
   * Encrypts `source` (a path, bytes, a Node Readable, a web ReadableStream or
   * an async iterable of bytes) in 64 KiB chunks, uploads the ciphertext and
   * sends a sealed `file` message with its key into `conversationId`.
   *
   * @throws {@link ValidationError} for a bad source or a file above 100 MB;
   * {@link ServiceError} `NOT_CONVERSATION_MEMBER_UPLOAD`, `FILE_TOO_LARGE`, `SHA256_MISMATCH`;
   * {@link RateLimitError} `FILE_UPLOAD_RATE_LIMITED`; what sending a message throws.
   * @example
   * ```ts
   * await agent.files.upload(conversationId, './report.pdf', { contentType: 'application/pdf' });
   * ```
   */
  async upload(
    conversationId: string,
    source: FileSource,
    options: FileUploadOptions = {},
  ): Promise<SentFile<R>> {
    const run = async (): Promise<SentFile<R>> => {
      const file = await uploadFile(this.#deps.rest(), conversationId, source, options);
      const sent = (await this.#deps.send(conversationId, file)) as R;
      return { file, sent };
    };
    return this.#deps.observe === undefined ? run() : this.#deps.observe(conversationId, run);
  }

  /**
   * Encrypts and uploads `source` without sending a message; returns the
   * `file` payload to send yourself (e.g. with other fields).
   */
  uploadOnly(
    conversationId: string,
    source: FileSource,
    options: FileUploadOptions = {},
  ): Promise<FilePayload> {
    return uploadFile(this.#deps.rest(), conversationId, source, options);
  }

  /**
   * Starts downloading the file of a received `file` payload: read the result
   * once with `stream()`, `toBytes()` or `toFile(path)`.
   *
   * The payload is checked again at run time (it came from a peer).
   *
   * @throws {@link ValidationError} when `payload` is not a valid `file` payload;
   * {@link ServiceError} `NOT_FOUND`; reading throws {@link FileIntegrityError} on tampering.
   * @example
   * ```ts
   * agent.on('message.new', async (msg) => {
   *   if (msg.payload.type !== 'file') return;
   *   const file = await agent.files.download(msg.payload);
   *   await file.toFile(`./inbox/${file.name}`);
   * });
   * ```
   */
  download(payload: FilePayload, options: FileDownloadOptions = {}): Promise<FileDownload> {
    return downloadFile(this.#deps.rest(), payload, options);
  }
}
