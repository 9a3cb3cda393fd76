/**
 * A stream over REST, for agents in webhook mode (paths in `STREAM_ROUTES`):
 * one request starts it, deltas go in batches (one request in flight at a
 * time, so they arrive in order; what comes meanwhile joins the next batch),
 * one request ends or aborts it. Requests are never retried: a stream error
 * answer (`STREAM_TIMEOUT` 408, …, with `params.reason`) becomes a
 * {@link StreamError}.
 *
 * @module
 */
import type { AmsError } from '../../core/errors/base.js';
import { STREAM_ERROR_VALUES, type StreamErrorValue } from '../../core/errors/codes.js';
import { isAmsError, isServiceError } from '../../core/errors/guards.js';
import { TransportError } from '../../core/errors/transport-error.js';
import { STREAM_LIMITS } from '../../core/limits/streams.js';
import { routePath, STREAM_ROUTES } from '../../core/protocol/service-names.js';
import type { RestClient } from '../../transport/rest/client.js';
import {
  streamErrorOf,
  type StreamEndFields,
  type StreamTransport,
} from '../../messaging/stream-transport.js';

const REASONS: ReadonlySet<unknown> = new Set(STREAM_ERROR_VALUES);

/** A stream over REST (webhook mode). `rest` must not retry (the Agent builds one with one attempt). */
export class RestStreamTransport implements StreamTransport {
  readonly #id: string;
  readonly #rest: RestClient;
  #failure: AmsError | undefined;
  readonly #listeners: ((e: AmsError) => void)[] = [];
  #queue: { seq: number; ciphertext: string }[] = [];
  #queuedBytes = 0;
  #sending: Promise<void> | undefined;
  readonly #drainWaiters: (() => void)[] = [];

  constructor(streamId: string, rest: RestClient) {
    this.#id = streamId;
    this.#rest = rest;
  }

  get failure(): AmsError | undefined {
    return this.#failure;
  }

  get bufferedAmount(): number {
    return this.#queuedBytes;
  }

  onFailure(listener: (error: AmsError) => void): void {
    this.#listeners.push(listener);
  }

  async start(conversationId: string, wireEnvelope: string): Promise<void> {
    await this.#call(routePath(STREAM_ROUTES.streamStart, { id: conversationId }), {
      stream_id: this.#id,
      wire_envelope: wireEnvelope,
    });
  }

  delta(seq: number, ciphertext: string): void {
    if (this.#failure !== undefined) return;
    this.#queue.push({ seq, ciphertext });
    this.#queuedBytes += ciphertext.length;
    this.#sending ??= this.#pump();
  }

  async drained(lowWaterMark: number): Promise<void> {
    while (this.#failure === undefined && this.#queuedBytes > lowWaterMark)
      await new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
  }

  async end(fields: StreamEndFields): Promise<void> {
    await this.#flushed();
    await this.#call(routePath(STREAM_ROUTES.streamEnd, { stream_id: this.#id }), fields);
  }

  async abort(ciphertext: string): Promise<void> {
    // The abort is signed over every delta the writer released: they go first, in order.
    while (this.#sending !== undefined) await this.#sending;
    await this.#call(routePath(STREAM_ROUTES.streamAbort, { stream_id: this.#id }), { ciphertext });
  }

  async #flushed(): Promise<void> {
    while (this.#sending !== undefined) await this.#sending;
    if (this.#failure !== undefined) throw this.#failure;
  }

  async #pump(): Promise<void> {
    try {
      while (this.#queue.length > 0 && this.#failure === undefined) {
        const batch = this.#queue.splice(0, STREAM_LIMITS.MAX_BATCH_DELTAS);
        const path = routePath(STREAM_ROUTES.streamDeltas, { stream_id: this.#id });
        try {
          await this.#call(path, { deltas: batch });
        } catch {
          // #call recorded the failure; write() and end() report it.
        }
        for (const d of batch) this.#queuedBytes -= d.ciphertext.length;
        for (const wake of this.#drainWaiters.splice(0)) wake();
      }
    } finally {
      this.#sending = undefined;
      for (const wake of this.#drainWaiters.splice(0)) wake();
    }
  }

  async #call(path: string, body: unknown): Promise<void> {
    if (this.#failure !== undefined) throw this.#failure;
    try {
      await this.#rest.post(path, body, { idempotent: false });
    } catch (err) {
      throw this.#fail(this.#asStreamError(err));
    }
  }

  #asStreamError(err: unknown): AmsError {
    if (isServiceError(err) && REASONS.has(err.params['reason']))
      return streamErrorOf(this.#id, err.params['reason'] as StreamErrorValue, err);
    if (isAmsError(err)) return err;
    return new TransportError({
      code: 'TRANSPORT_PROTOCOL',
      message: 'The stream request failed.',
      cause: err,
    });
  }

  #fail(error: AmsError): AmsError {
    if (this.#failure === undefined) {
      this.#failure = error;
      for (const listener of this.#listeners) listener(error);
    }
    return this.#failure;
  }
}
