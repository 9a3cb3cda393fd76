/**
 * Sending a message: look up the conversation's members and their public
 * keys (cached by the {@link KeyDirectory}), seal the payload to them
 * (envelope v1, `sealAsync`), post the envelope.
 *
 * Recipients: every other member's **current** X25519 key (the service
 * refuses an envelope without it, `INVALID_ENVELOPE` `missing_recipient`),
 * plus their keys still in grace (a process that has not picked up its new
 * key yet can still open the message), plus the sender's own current key so
 * its history stays readable. When the service says a recipient's key is
 * stale (`INVALID_ENVELOPE` with reason `missing_recipient` or
 * `unknown_recipient`), the directory entries are dropped, the payload is
 * sealed again to fresh keys under the same message id, and sent once more.
 * A member whose keys are refused (`KEY_ENUMERATION_BLOCKED`, as after the
 * relation was revoked) is left out, so the service's own answer to the post
 * (`RELATION_REVOKED`) is what the caller sees.
 *
 * In a group, the recipients are the members of the owner-signed roster
 * (docs/groups.md) that the service also lists, each under the one X25519
 * key the roster binds (no retired keys): a member the service lists beyond
 * the roster, or under another key, gets nothing and is reported through
 * `members.observeUnsigned` (`membersChanged`, refused under `'block'`).
 *
 * Errors are the REST client's, after its client-side limiter (5 sends per
 * second per agent) and retries: `RELATION_REVOKED`, `CONVERSATION_FORBIDDEN`
 * (a `ServiceError`), `MESSAGE_RATE_LIMITED` (a `RateLimitError` once the
 * retry budget is spent), `AGENT_RESTRICTED`…
 *
 * @module
 */
import { withReplyTo } from '../core/protocol/replies.js';
import { systemClock, type Clock } from '../core/clock.js';
import { isServiceError } from '../core/errors/guards.js';
import { redactingLogger, silentLogger, type Logger } from '../core/logger.js';
import type { CryptoBackend } from '../crypto/backend/types.js';
import type { KeyRing } from '../crypto/key-store/key-ring.js';
import type { EnvelopePayload } from '../crypto/payload.js';
import type { EnvelopeRecipient } from '../crypto/seal-options.js';
import { sealAsync } from '../crypto/seal.js';
import type { SentMessageResult } from './wire/results.js';
import type { KeyDirectory, PeerKeys } from './key-directory.js';
import type { MemberWatch } from './member-watch.js';
import { rosterFingerprint } from './roster.js';

/** Posts a sealed envelope: `AgentApi.sendMessage` (agents) or the user client's equivalent. */
export interface MessagePoster {
  sendMessage(
    conversationId: string,
    wireEnvelope: string,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<SentMessageResult>;
}

/** Options of {@link createMessageSender}. */
export interface MessageSenderOptions {
  /** Posts the envelope (an `AgentApi` fits). */
  api: MessagePoster;
  /** The sender's id (the agent's, or the user's): bound into every envelope. */
  agentId: string;
  /** The sender's current key ring (read at every send, so a rotation is picked up). */
  keys: () => KeyRing;
  /** Members and their public keys. */
  directory: KeyDirectory;
  /** Time source of `created_at`. @defaultValue `systemClock` */
  clock?: Clock;
  /** Crypto backend. @defaultValue node:crypto on Node, else the portable backend */
  backend?: CryptoBackend;
  /** Wrap to the recipients' keys still in grace too. @defaultValue true */
  includeRetiredKeys?: boolean;
  /** Wrap to the sender's own current key, so it can read its own messages. @defaultValue true */
  includeSelf?: boolean;
  /** Where log lines go (ids only, never payloads). @defaultValue silent */
  logger?: Logger;
  /** Watches the recipient set per conversation (`membersChanged`). @defaultValue none */
  members?: Pick<MemberWatch, 'observe'> & Partial<Pick<MemberWatch, 'observeUnsigned'>>;
}

/** Per-send options. */
export interface SendOptions {
  /** The message id to bind (e.g. to repeat a send idempotently). @defaultValue a random UUID */
  messageId?: string;
  /** Aborts the send, also while it waits for the client-side limiter or a retry. */
  signal?: AbortSignal;
  /**
   * The id of the message this one answers: sealed in the payload as
   * `reply_to` (receivers get it as `replyTo`, with the quoted text when they
   * saw it). See docs/agent.md, "Replies".
   */
  replyTo?: string;
}

/** Seals and sends messages. */
export interface MessageSender {
  /**
   * Seals `payload` to the conversation's members and posts it.
   *
   * @throws {@link ServiceError} (`RELATION_REVOKED`, `CONVERSATION_FORBIDDEN`, …),
   *   {@link RateLimitError} (`MESSAGE_RATE_LIMITED` after retries), {@link ValidationError}
   *   (a payload that is not a JSON object, or a bad service answer), {@link TransportError}.
   */
  send(conversationId: string, payload: EnvelopePayload, options?: SendOptions): Promise<SentMessageResult>;
  /**
   * Seals `payload` as `eventType` to the conversation's members and hands
   * the envelope to `post` (any route that carries one), with the same
   * stale-key retry as {@link MessageSender.send}. `post` also gets the ids
   * of the members (other than the sender) the envelope was sealed for.
   */
  sealAndPost<T>(
    conversationId: string,
    payload: EnvelopePayload,
    options: SealAndPostOptions,
    post: (wireEnvelope: string, messageId: string, recipients: readonly string[]) => Promise<T>,
  ): Promise<T>;
}

/** Options of {@link MessageSender.sealAndPost}. */
export interface SealAndPostOptions {
  /** The event type sealed under the signature. @defaultValue `'message.new'` */
  readonly eventType?: string;
  /** The message id to bind. @defaultValue a random UUID */
  readonly messageId?: string;
}

const STALE_KEY_REASONS: ReadonlySet<unknown> = new Set(['missing_recipient', 'unknown_recipient']);
/** Answers after which the cached conversation (members, state) is not trusted any more. */
const RELATION_CODES: ReadonlySet<string> = new Set([
  'RELATION_REVOKED',
  'CONVERSATION_FORBIDDEN',
  'FORBIDDEN',
]);

/**
 * Creates a message sender.
 *
 * @example
 * ```ts
 * const sender = createMessageSender({ api, agentId, keys: () => ring, directory });
 * const { messageId } = await sender.send(conversationId, { type: 'text', text: 'hello' });
 * ```
 */
export function createMessageSender(options: MessageSenderOptions): MessageSender {
  const clock = options.clock ?? systemClock;
  const log = redactingLogger(options.logger ?? silentLogger);
  const { directory, agentId } = options;
  const withRetired = options.includeRetiredKeys !== false;
  const withSelf = options.includeSelf !== false;

  // A peer's keys are refused (KEY_ENUMERATION_BLOCKED) once the relation is revoked, and an agent
  // has none between an emergency token regeneration and its new registration (AGENT_PUBKEY_NOT_FOUND):
  // leave the peer out and let the service give the authoritative answer to the post
  // (RELATION_REVOKED, AGENT_NOT_REGISTERED; a group accepts the message for its other members).
  async function keysOrBlocked(id: string): Promise<PeerKeys | undefined> {
    try {
      return await directory.keys(id);
    } catch (err) {
      if (isServiceError(err, 'KEY_ENUMERATION_BLOCKED') || isServiceError(err, 'AGENT_PUBKEY_NOT_FOUND'))
        return undefined;
      throw err;
    }
  }

  async function recipientsOf(conversationId: string, ring: KeyRing): Promise<EnvelopeRecipient[]> {
    const members = await directory.conversationMembers(conversationId);
    // A group: only the members of the owner-signed roster, each under the key it binds.
    const group = await directory.groupMembership(conversationId);
    const bound = new Map(group?.roster.members.map((m) => [m.id, m.enc]));
    const unsigned = [...(group?.unsigned ?? [])];
    const out: EnvelopeRecipient[] = [];
    const sealed: string[] = [];
    for (const id of members) {
      if (id === agentId) continue;
      const k = await keysOrBlocked(id);
      if (k === undefined) continue;
      if (group !== undefined) {
        if (rosterFingerprint(k.encryption, options.backend) !== bound.get(id)) {
          unsigned.push(id); // the service serves a key the owner did not bind
          continue;
        }
        out.push({ id, publicKey: k.encryption });
        sealed.push(id);
        continue;
      }
      out.push({ id, publicKey: k.encryption });
      sealed.push(id);
      if (withRetired) for (const r of k.retired) out.push({ id, publicKey: r.encryption });
    }
    if (group !== undefined) options.members?.observeUnsigned?.(conversationId, unsigned);
    options.members?.observe(
      conversationId,
      group === undefined ? members.filter((id) => id !== agentId) : sealed,
    );
    if (withSelf) out.push({ id: agentId, publicKey: ring.current.keys.encryption.publicKey });
    return out;
  }

  async function sealWithRecipients(
    conversationId: string,
    payload: EnvelopePayload,
    messageId: string,
    eventType?: string,
  ): Promise<{ wire: string; recipients: readonly EnvelopeRecipient[] }> {
    const ring = options.keys();
    const recipients = await recipientsOf(conversationId, ring);
    const wire = await sealAsync(payload, {
      ...(eventType === undefined ? {} : { eventType }),
      sender: { id: agentId, signing: ring.current.keys.signing },
      recipients,
      conversationId,
      messageId,
      clock,
      ...(options.backend === undefined ? {} : { backend: options.backend }),
    });
    return { wire, recipients };
  }

  async function sealFor(
    conversationId: string,
    payload: EnvelopePayload,
    messageId: string,
    eventType?: string,
  ): Promise<string> {
    return (await sealWithRecipients(conversationId, payload, messageId, eventType)).wire;
  }

  async function sealAndPostOnce<T>(
    conversationId: string,
    payload: EnvelopePayload,
    messageId: string,
    eventType: string | undefined,
    post: (wireEnvelope: string, messageId: string, recipients: readonly string[]) => Promise<T>,
  ): Promise<T> {
    const sealed = await sealWithRecipients(conversationId, payload, messageId, eventType);
    const ids = [...new Set(sealed.recipients.map((r) => r.id))].filter((id) => id !== agentId);
    return post(sealed.wire, messageId, ids);
  }

  async function forgetMembers(conversationId: string): Promise<void> {
    const members = await directory.conversationMembers(conversationId).catch(() => []);
    directory.invalidateConversation(conversationId);
    for (const id of members) directory.invalidate(id);
  }

  return {
    async sealAndPost(conversationId, payload, o, post) {
      const messageId = o.messageId ?? globalThis.crypto.randomUUID();
      try {
        return await sealAndPostOnce(conversationId, payload, messageId, o.eventType, post);
      } catch (err) {
        if (isServiceError(err) && RELATION_CODES.has(err.code))
          directory.invalidateConversation(conversationId);
        if (!isServiceError(err, 'INVALID_ENVELOPE') || !STALE_KEY_REASONS.has(err.params['reason']))
          throw err;
        await forgetMembers(conversationId);
        return sealAndPostOnce(conversationId, payload, messageId, o.eventType, post);
      }
    },
    async send(conversationId, given, sendOptions = {}) {
      const payload = sendOptions.replyTo === undefined ? given : withReplyTo(given, sendOptions.replyTo);
      const messageId = sendOptions.messageId ?? globalThis.crypto.randomUUID();
      const post = { signal: sendOptions.signal };
      try {
        return await options.api.sendMessage(
          conversationId,
          await sealFor(conversationId, payload, messageId),
          post,
        );
      } catch (err) {
        if (isServiceError(err) && RELATION_CODES.has(err.code))
          directory.invalidateConversation(conversationId);
        if (!isServiceError(err, 'INVALID_ENVELOPE') || !STALE_KEY_REASONS.has(err.params['reason']))
          throw err;
        log.info('a recipient key changed; sealing again to fresh keys', { conversationId, messageId });
        await forgetMembers(conversationId);
        return options.api.sendMessage(
          conversationId,
          await sealFor(conversationId, payload, messageId),
          post,
        );
      }
    },
  };
}
