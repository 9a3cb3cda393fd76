/**
 * Opening streams for an Agent: a fresh 32-byte stream key, sealed like an
 * ordinary message (envelope v1.1, event type `stream.start`, message id =
 * stream id) to every member of the conversation as the `stream.open`
 * payload; the service accepts the start; then a {@link StreamWriter} seals
 * deltas under the key. Over the agent's WebSocket in WebSocket mode, over
 * REST in webhook mode (never retried either way).
 *
 * @module
 */
import type { Clock } from '../../core/clock.js';
import { toBase64 } from '../../core/encoding.js';
import { isServiceError } from '../../core/errors/guards.js';
import { STREAM_FRAMES } from '../../core/protocol/service-names.js';
import { STREAM_PARTS_VERSION } from '../../core/protocol/stream-parts.js';
import type { ServiceStreamFrame } from '../../core/protocol/stream-frames.js';
import type { CryptoBackend } from '../../crypto/backend/types.js';
import { defaultSyncBackend } from '../../crypto/backend/node-default.js';
import type { KeyRing } from '../../crypto/key-store/key-ring.js';
import type { EnvelopeRecipient } from '../../crypto/seal-options.js';
import { sealAsync } from '../../crypto/seal.js';
import {
  STREAM_CRYPTO_VERSION,
  STREAM_KEY_BYTES,
  STREAM_OPEN_PAYLOAD_TYPE,
  streamCipher,
} from '../../crypto/stream/stream-crypto.js';
import type { RestClient } from '../../transport/rest/client.js';
import type { KeyDirectory } from '../../messaging/key-directory.js';
import type { MemberWatch } from '../../messaging/member-watch.js';
import { RestStreamTransport } from './rest-transport.js';
import type { StreamTransport } from '../../messaging/stream-transport.js';
import {
  createStreamWriter,
  pipeToWriter,
  type StreamSummary,
  type StreamWriter,
  type StreamWriterOptions,
} from './writer.js';
import { StreamFrameRouter, WsStreamTransport, type FrameSocket } from './ws-transport.js';
import type { ObservedStreamEnd } from '../observer.js';

/** What an Agent's streams need. */
export interface AgentStreamsDeps {
  readonly agentId: string;
  readonly mode: 'websocket' | 'webhook';
  readonly clock: Clock;
  readonly directory: KeyDirectory;
  /** The loaded key ring. */
  readonly ring: () => Promise<KeyRing>;
  /** The WebSocket dispatcher, once connected (WebSocket mode). */
  readonly socket: () => FrameSocket | undefined;
  /** A REST client that never retries (webhook mode). */
  readonly rest: RestClient;
  readonly backend?: CryptoBackend | undefined;
  /** Watches the recipient set per conversation, as for `send()` (`membersChanged`, `MEMBERS_CHANGED`). */
  readonly members?: Pick<MemberWatch, 'observe'> | undefined;
}

/** The streams of one Agent. */
export class AgentStreams {
  readonly #d: AgentStreamsDeps;
  /** Routes `stream.accepted` / `stream.closed` / `stream.error` to their streams. */
  readonly router = new StreamFrameRouter();

  constructor(deps: AgentStreamsDeps) {
    this.#d = deps;
  }

  /** Hands a service frame about a stream to it; false when no stream has that id. */
  receive(frame: ServiceStreamFrame): boolean {
    return this.router.route(frame);
  }

  /**
   * Opens a stream into `conversationId`: seals and sends the stream key,
   * resolves with the writer once the service accepted the stream.
   *
   * @throws {@link StreamError} (`client_offline`, `peer_revoked`, `rate_limited`) when the service refuses it;
   * ServiceError `CONVERSATION_FORBIDDEN`; TransportError when the WebSocket is not open; CryptoError
   * `MEMBERS_CHANGED` under the `'block'` key-change policy when the conversation gained a member (as `send()`).
   */
  async open(
    conversationId: string,
    options?: StreamWriterOptions,
    onClose?: (end: ObservedStreamEnd) => void,
  ): Promise<StreamWriter> {
    const ring = await this.#d.ring();
    const streamId = globalThis.crypto.randomUUID();
    const key = defaultSyncBackend().randomBytes(STREAM_KEY_BYTES);
    const signing = ring.current.keys.signing;
    const wire = await sealAsync(
      {
        type: STREAM_OPEN_PAYLOAD_TYPE,
        v: STREAM_CRYPTO_VERSION,
        parts: STREAM_PARTS_VERSION,
        stream_id: streamId,
        key: toBase64(key),
      },
      {
        sender: { id: this.#d.agentId, signing },
        recipients: await this.#recipients(conversationId, ring),
        conversationId,
        messageId: streamId,
        eventType: STREAM_FRAMES.start,
        clock: this.#d.clock,
        ...(this.#d.backend === undefined ? {} : { backend: this.#d.backend }),
      },
    );
    const transport = this.#transport(streamId);
    try {
      await transport.start(conversationId, wire);
    } catch (err) {
      if (isServiceError(err) && err.code === 'CONVERSATION_FORBIDDEN')
        this.#d.directory.invalidateConversation(conversationId);
      throw err;
    }
    return createStreamWriter({
      streamId,
      conversationId,
      cipher: streamCipher(key, streamId),
      signing: { publicKey: signing.publicKey, privateKey: signing.privateKey },
      transport,
      options,
      onClose,
    });
  }

  /** Streams every chunk of `source` into `conversationId` and ends the stream. */
  async pipe(
    conversationId: string,
    source: AsyncIterable<string> | Iterable<string>,
    options?: StreamWriterOptions,
    open: (conversationId: string, options?: StreamWriterOptions) => Promise<StreamWriter> = (c, o) =>
      this.open(c, o),
  ): Promise<StreamSummary> {
    return pipeToWriter(await open(conversationId, options), source);
  }

  #transport(streamId: string): StreamTransport {
    if (this.#d.mode === 'webhook') return new RestStreamTransport(streamId, this.#d.rest);
    const socket = this.#d.socket() ?? { sendFrame: () => false, bufferedAmount: 0 };
    return new WsStreamTransport(streamId, socket, this.router);
  }

  async #recipients(conversationId: string, ring: KeyRing): Promise<EnvelopeRecipient[]> {
    const { directory, agentId } = this.#d;
    const members = await directory.conversationMembers(conversationId);
    this.#d.members?.observe(
      conversationId,
      members.filter((id) => id !== agentId),
    );
    const out: EnvelopeRecipient[] = [];
    for (const id of members) {
      if (id === agentId) continue;
      const k = await directory.keys(id);
      out.push({ id, publicKey: k.encryption });
      for (const r of k.retired) out.push({ id, publicKey: r.encryption });
    }
    out.push({ id: agentId, publicKey: ring.current.keys.encryption.publicKey });
    return out;
  }
}
