/**
 * The messaging half of the {@link UserClient}: sealing and sending, reading
 * the inbox, and the WebSocket whose message frames are opened and emitted.
 * Kept apart from the account calls so each file stays small.
 *
 * Frames are handled one at a time, in the order they arrived (so per
 * conversation in order); a delivery seen before (its `delivery_id` or its
 * signed message id) is acknowledged without being emitted again; a
 * delivery is acknowledged after the `message` / `messageFailed` listeners
 * returned. While connected, the access token is renewed at 80 % of its
 * lifetime (`token-renewal.ts`).
 *
 * @module
 */
import type { AmsError } from '../core/errors/base.js';
import { ConfigurationError } from '../core/errors/configuration-error.js';
import { isAmsError } from '../core/errors/guards.js';
import { TransportError } from '../core/errors/transport-error.js';
import type { Logger } from '../core/logger.js';
import type { EnvelopePayload } from '../crypto/payload.js';
import { discloseContentKey } from '../crypto/forward-proof.js';
import { decryptFailure } from '../crypto/envelope-errors.js';
import type { KeyDirectory } from '../messaging/key-directory.js';
import type { MemberWatch } from '../messaging/member-watch.js';
import { createMessageSender, type MessageSender, type SendOptions } from '../messaging/sender.js';
import { openDelivered, type OpenContext, type ReceivedMessage } from './open-message.js';
import { RecentMessageIds } from './recent-ids.js';
import { QuoteCache } from '../messaging/quote-cache.js';
import { resolveAction, type ActionOutcome } from '../messaging/message-actions.js';
import { readMessageAction, type MessageAction } from '../core/protocol/message-actions.js';
import { rememberWireEnvelope } from '../messaging/forward-attribution.js';
import type { ResolvedUserClientOptions, UserClientOptions } from './options.js';
import type { SessionInfo, UserSession } from './session.js';
import type { UserApi } from './user-api.js';
import type { FailedMessage, InboxOptions, InboxPage, UserClientEvents } from './user-client-types.js';
import { userKeyRing, type UserKeySet } from './user-keys.js';
import { DeliveryDedup } from './delivery-dedup.js';
import { TokenRenewal } from './token-renewal.js';
import { UserSocket } from './user-socket.js';
import { StreamReceiver } from './streams/receiver.js';
import { isStreamFrameType } from '../core/protocol/stream-frames.js';
import { STREAM_FRAMES } from '../core/protocol/service-names.js';
import { UserMessageFrameSchema } from '../messaging/wire/conversations.js';
import type { SentMessageResult } from '../messaging/wire/results.js';

/** What the messaging half needs from the client. */
export interface UserMessagingDeps {
  readonly api: UserApi;
  readonly session: UserSession;
  readonly directory: KeyDirectory;
  readonly options: ResolvedUserClientOptions;
  readonly WebSocket: UserClientOptions['WebSocket'];
  readonly backoff: UserClientOptions['backoff'];
  readonly log: Logger;
  /** The user's keys in memory, if any. */
  readonly keys: () => UserKeySet | undefined;
  /** Watches the recipient set per conversation. */
  readonly members?: MemberWatch | undefined;
  /** Takes a received service event (e.g. a group event) instead of `message`; true when taken. */
  readonly serviceEvent?: ((message: ReceivedMessage) => boolean) | undefined;
  /** Emits a client event. */
  readonly emit: <E extends keyof UserClientEvents>(event: E, ...args: UserClientEvents[E]) => void;
  /** Sees each opened live delivery first; true when it consumed it (then no `message` is emitted). */
  readonly onReceived?: ((message: ReceivedMessage) => boolean) | undefined;
}

const asError = (err: unknown): AmsError =>
  isAmsError(err)
    ? err
    : new TransportError({ code: 'TRANSPORT_PROTOCOL', message: 'Unexpected failure.', cause: err });

/** Sends, reads and receives messages for the signed-in user. */
export class UserMessaging {
  readonly #d: UserMessagingDeps;
  #socket: UserSocket | undefined;
  #sender: { readonly userId: string; readonly sender: MessageSender } | undefined;
  /** Live messages already emitted (signed sender and message id), kept 25 h (replay window). */
  readonly #recent: RecentMessageIds;
  readonly #quotes = new QuoteCache();
  readonly #dedup = new DeliveryDedup();
  readonly #renewal: TokenRenewal;
  #frames: Promise<void> = Promise.resolve();
  readonly #streams: StreamReceiver;

  constructor(deps: UserMessagingDeps) {
    this.#d = deps;
    this.#streams = new StreamReceiver({
      openStart: (wire, conversationId) =>
        openDelivered(
          wire,
          {
            event: STREAM_FRAMES.start,
            conversationId,
            seq: undefined,
            receivedAtMs: deps.options.clock.now(),
          },
          this.#openContext(),
        ),
      signingKey: (id) => deps.directory.signingKey(id),
      log: deps.log,
      clock: deps.options.clock,
      deadlineMs: deps.options.streamDeadlineMs,
      replayStore: deps.options.streamReplayStore,
      emit: {
        streamStart: (info) => deps.emit('streamStart', info),
        streamDelta: (info) => deps.emit('streamDelta', info),
        streamEnd: (info) => deps.emit('streamEnd', info),
        streamError: (failure) => deps.emit('streamError', failure),
        streamPart: (update) => deps.emit('streamPart', update),
        streamPartDropped: (dropped) => deps.emit('streamPartDropped', dropped),
      },
    });
    this.#recent = new RecentMessageIds(deps.options.clock);
    this.#renewal = new TokenRenewal(deps.session, deps.options.clock, deps.log);
  }

  /** The signed-in user, or a ConfigurationError. */
  requireSession(): SessionInfo {
    const info = this.#d.session.info;
    if (info === undefined) {
      throw new ConfigurationError({
        message: 'Not signed in: call register(), login() or loginWithCode() first.',
      });
    }
    return info;
  }

  /** Renews the open WebSocket with a new access token. */
  renew(accessToken: string): void {
    this.#socket?.renew(accessToken);
    this.#renewal.tokenChanged();
  }

  /** See `UserClient.send`. */
  async send(
    conversationId: string,
    payload: EnvelopePayload,
    options: SendOptions,
  ): Promise<SentMessageResult> {
    const sent = await this.#senderFor(this.requireSession().userId).send(conversationId, payload, options);
    this.#quotes.remember(conversationId, sent.messageId, this.requireSession().userId, payload);
    return sent;
  }

  /** Judges a received edit, delete or receipt against the messages this client saw (and applies it). */
  resolveAction(message: ReceivedMessage, action: MessageAction): ActionOutcome {
    return resolveAction(this.#quotes, message, action, this.#d.options.readReceipts);
  }

  /** Applies the user's own edit (`payload`) or delete (undefined) to the quotes. */
  applyOwn(
    conversationId: string,
    targetId: string,
    payload: Readonly<Record<string, unknown>> | undefined,
  ): void {
    this.#quotes.apply(conversationId, targetId, payload);
  }

  /** `message` with its `replyTo` resolved (the same object when it replies to nothing); remembers its text. */
  #withReply(message: ReceivedMessage, wire: string): ReceivedMessage {
    const replyTo = this.#quotes.replyOf(message.conversationId, message.payload);
    this.#quotes.remember(message.conversationId, message.messageId, message.senderId, message.payload);
    if (replyTo === undefined) return message;
    const result = { ...message, replyTo };
    rememberWireEnvelope(result, wire);
    return result;
  }

  /** The signed-in user's sealer (for artifacts, reactions, forwards). */
  sender(): MessageSender {
    return this.#senderFor(this.requireSession().userId);
  }

  /**
   * See `UserClient.messages`. An inbox read is history, not a delivery: no
   * freshness window (old messages are legitimately old) and no memory of
   * live deliveries (a message read again is read again). Within one page,
   * the service cannot make one signed message count twice: a second copy of
   * the same signed (sender, message id) goes into `failed` as
   * `DECRYPT_FAILURE` reason `duplicate` (#24, item 11).
   */
  async messages(conversationId: string, o: InboxOptions): Promise<InboxPage> {
    const stored = await this.#d.api.messages(conversationId, o.after, o.limit);
    const messages: ReceivedMessage[] = [];
    const actions: ReceivedMessage[] = [];
    const failed: FailedMessage[] = [];
    const seen = new Set<string>();
    for (const m of stored) {
      const delivery = { event: 'inbox', conversationId, seq: m.seq };
      try {
        const message = this.#withReply(
          await openDelivered(m.wire_envelope, delivery, this.#openContext()),
          m.wire_envelope,
        );
        const key = JSON.stringify([message.senderId, message.messageId]);
        if (seen.has(key))
          throw decryptFailure('duplicate', undefined, 'the page lists this signed message twice');
        seen.add(key);
        (isActionPayload(message.payload) ? actions : messages).push(message);
      } catch (err) {
        failed.push({ messageId: m.message_id, seq: m.seq, error: asError(err) });
      }
    }
    const last = stored[stored.length - 1];
    return { messages, actions, failed, cursor: last === undefined ? (o.after ?? 0) : last.seq };
  }

  /** See `UserClient.connect`. */
  async connect(): Promise<void> {
    if (this.#socket !== undefined) return;
    this.requireSession();
    const { options: o, session, emit } = this.#d;
    const socket = new UserSocket({
      url: o.wsUrl,
      accessToken: () => session.accessToken(),
      refresh: () => session.refresh(),
      WebSocket: this.#d.WebSocket,
      clock: o.clock,
      logger: this.#d.log,
      backoff: this.#d.backoff,
      authTimeoutMs: o.authTimeoutMs,
      acks: o.acks,
    });
    this.#socket = socket;
    socket.on('frame', (frame) => {
      if (isStreamFrameType(frame['type'])) return this.#streams.receive(frame);
      this.#frames = this.#frames.then(() => this.#onFrame(socket, frame));
    });
    socket.on('open', () => emit('connected'));
    socket.on('renewed', () => emit('tokenRenewed'));
    socket.on('close', (info) => {
      this.#streams.connectionLost();
      emit('disconnected', info);
    });
    socket.on('sessionInvalidated', () => emit('sessionInvalidated'));
    socket.on('authExpiring', (info) => emit('authExpiring', info));
    socket.on('fatal', (err) => {
      if (this.#socket === socket) this.#socket = undefined;
      this.#renewal.stop();
      emit('connectionFailed', err);
    });
    this.#renewal.arm();
    try {
      await socket.start();
    } catch (err) {
      if (this.#socket === socket) this.#socket = undefined;
      this.#renewal.stop();
      throw err;
    }
  }

  /** Resolves once every frame received so far was handled (and the ones that arrived meanwhile). */
  async idle(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.#frames;
      await seen;
    } while (seen !== this.#frames);
  }

  /** See `UserClient.disconnect`. Waits until the frames received so far were handled. */
  async disconnect(): Promise<void> {
    const socket = this.#socket;
    this.#socket = undefined;
    this.#renewal.stop();
    await this.#frames;
    await socket?.close();
  }

  async #onFrame(socket: UserSocket, frame: Readonly<Record<string, unknown>>): Promise<void> {
    const raw = frame['delivery_id'];
    const deliveryId = typeof raw === 'string' && raw.length > 0 && raw.length <= 64 ? raw : undefined;
    await this.#handleFrame(frame, deliveryId);
    if (deliveryId !== undefined) socket.ack(deliveryId);
  }

  /** Opens and emits one frame unless it was delivered before. */
  async #handleFrame(
    frame: Readonly<Record<string, unknown>>,
    deliveryId: string | undefined,
  ): Promise<void> {
    const parsed = UserMessageFrameSchema.safeParse(frame);
    if (!parsed.success) {
      this.#d.log.debug('user socket: ignored a frame without an envelope', {
        type: String(frame['type']).slice(0, 100),
      });
      return;
    }
    const f = parsed.data;
    const conversationId = f.metadata.conversation_id;
    if (this.#dedup.has({ deliveryId, conversationId, messageId: undefined })) return;
    const delivery = { event: f.type, conversationId, seq: f.seq, receivedAtMs: this.#d.options.clock.now() };
    try {
      const message = this.#withReply(
        await openDelivered(f.wire_envelope, delivery, this.#openContext()),
        f.wire_envelope,
      );
      const key = { deliveryId, conversationId: message.conversationId, messageId: message.messageId };
      if (this.#dedup.has(key)) return;
      if (!this.#recent.add(message.senderId, message.messageId)) {
        this.#d.log.debug('user socket: skipped a message delivered again', {
          conversationId: message.conversationId,
        });
        return;
      }
      this.#dedup.add(key);
      if (this.#d.serviceEvent?.(message) === true) return;
      if (this.#d.onReceived?.(message) !== true) this.#d.emit('message', message);
    } catch (err) {
      this.#dedup.add({ deliveryId, conversationId, messageId: undefined });
      const error = asError(err);
      this.#d.log.warn('a received message could not be opened', {
        conversationId: delivery.conversationId,
        code: error.code,
      });
      this.#d.emit('messageFailed', {
        messageId: f.message_id,
        seq: f.seq,
        conversationId: delivery.conversationId,
        error,
      });
    }
  }

  /** The content key of an envelope the user received (for a forward proof). */
  discloseKey(wire: string): Promise<Uint8Array> {
    const c = this.#openContext();
    return discloseContentKey(wire, { recipientId: c.recipientId, keys: c.keys });
  }

  #requireKeys(): UserKeySet {
    const keys = this.#d.keys();
    if (keys === undefined) {
      throw new ConfigurationError({
        message: 'No keys in memory: call register(), setUpKeys() or unlockKeys() first.',
      });
    }
    return keys;
  }

  #openContext(): OpenContext {
    return {
      recipientId: this.requireSession().userId,
      keys: [this.#requireKeys().encryption],
      directory: this.#d.directory,
      acceptLegacyV10: this.#d.options.acceptLegacyV10,
      onKeyWarning: (warning) => {
        this.#d.log.warn('a message was also wrapped to a key listed under this user that it does not hold', {
          conversationId: warning.conversationId,
          fingerprints: warning.fingerprints.join(','),
        });
        this.#d.emit('keyWarning', warning);
      },
    };
  }

  /** One sender per signed-in user id (the id is bound into every envelope). */
  #senderFor(userId: string): MessageSender {
    if (this.#sender?.userId !== userId) {
      const { directory, options, log } = this.#d;
      const sender = createMessageSender({
        api: this.#d.api,
        agentId: userId,
        keys: () => userKeyRing(this.#requireKeys(), options.clock.now()),
        directory,
        clock: options.clock,
        logger: log,
        ...(this.#d.members === undefined ? {} : { members: this.#d.members }),
      });
      this.#sender = { userId, sender };
    }
    return this.#sender.sender;
  }
}

/** An edit, a delete, a read receipt or a reaction: an action on messages, not a message. */
function isActionPayload(payload: unknown): boolean {
  if (readMessageAction(payload) !== undefined) return true;
  return (payload as { type?: unknown } | null)?.type === 'reaction';
}
