/**
 * The messages between the open pool and its worker threads, and how a
 * failure crosses the thread boundary: a {@link CryptoError} travels as its
 * code, reason and message (never a key, ciphertext or plaintext) and is
 * rebuilt on the calling thread as the same typed error.
 *
 * @module
 */
import { CryptoError, type DecryptFailureReason } from '../../core/errors/index.js';
import { isCryptoError } from '../../core/errors/guards.js';
import type { KeyPair } from '../keys.js';
import type { OpenedEnvelope } from '../open-options.js';

/** Pool → worker: the recipient key pairs every following job opens with (sent once per change). */
export interface KeysMessage {
  readonly t: 'keys';
  readonly keys: readonly KeyPair[];
}

/** One envelope to open. The sender key comes with the job (32 bytes): it was looked up on the calling thread. */
export interface OpenJob {
  readonly id: number;
  /** Base64 text, or envelope bytes in a buffer transferred to the worker. */
  readonly input: string | Uint8Array;
  readonly recipientId: string;
  /** The sender id read from the header on the calling thread; the key is offered for it alone. */
  readonly senderId: string | undefined;
  readonly senderKey: Uint8Array | undefined;
  readonly maxBytes: number;
  readonly acceptLegacy: boolean;
}

/** Pool → worker: a batch of jobs. */
export interface JobsMessage {
  readonly t: 'open';
  readonly jobs: readonly OpenJob[];
}

/** A failure as it crosses threads: a typed crypto error, or anything else (re-run on the calling thread). */
export type WireFailure =
  | {
      readonly kind: 'crypto';
      readonly code: CryptoError['code'];
      readonly reason: DecryptFailureReason | undefined;
      readonly message: string;
    }
  | { readonly kind: 'other' };

/** The outcome of one job. */
export type JobResult =
  | { readonly id: number; readonly opened: OpenedEnvelope }
  | { readonly id: number; readonly failure: WireFailure };

/** Worker → pool: the worker is ready / a batch is done. */
export type WorkerMessage = { readonly t: 'ready' } | { readonly t: 'done'; readonly results: JobResult[] };

/** What the pool posts to a worker. */
export type PoolMessage = KeysMessage | JobsMessage;

/** A thrown value as it is sent back to the calling thread. */
export function toWireFailure(err: unknown): WireFailure {
  if (!isCryptoError(err)) return { kind: 'other' };
  return { kind: 'crypto', code: err.code, reason: err.reason, message: err.message };
}

/** The typed error of a crypto failure that came back from a worker. */
export function fromWireFailure(f: Extract<WireFailure, { kind: 'crypto' }>): CryptoError {
  return new CryptoError({ code: f.code, message: f.message, reason: f.reason });
}
