/**
 * The human side of status (#26): a received `status.update` (opened like
 * any envelope: signed by its sender, sealed for this conversation and as a
 * `status.update`, fresh) becomes a `status` event, never a `message`.
 *
 * A `working` status is shown until the first of: its TTL (refreshed by each
 * new status of the sender; clamped to 60 s), an `idle` status, or the
 * sender's next message in the conversation (the reply clears it). Each of
 * these emits `status` with `state: 'idle'`, `text: null` and the reason. A
 * status signed before the last status or message of the same sender in the
 * conversation is stale and ignored (a relay holding one back cannot bring
 * an old "working" back after the reply).
 *
 * @module
 */
import type { Clock, TimerHandle } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { PRESENCE_FRAMES } from '../core/protocol/service-names.js';
import { STATUS_LIMITS, StatusPayloadSchema } from '../core/protocol/status.js';
import type { ReceivedMessage } from './open-message.js';

/** A status of another member (an agent), or its end. */
export interface StatusUpdate {
  readonly conversationId: string;
  /** Who shows it (verified: the envelope's signer). */
  readonly senderId: string;
  /** `working`: show an indicator; `idle`: hide it. */
  readonly state: 'working' | 'idle';
  /** What the sender is doing; `null` for a plain indicator, and when cleared. */
  readonly text: string | null;
  /**
   * Why it ended (`idle` only): the sender cleared it, its reply arrived, or
   * no refresh came within its TTL.
   */
  readonly reason?: 'cleared' | 'replied' | 'expired';
  /** When a `working` status ends without a refresh (ms since the epoch); undefined for `idle`. */
  readonly expiresAt?: number;
}

/** What the status tracker needs. */
export interface UserStatusDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly emit: (update: StatusUpdate) => void;
}

interface Shown {
  readonly update: StatusUpdate;
  readonly timer: TimerHandle;
}

const keyOf = (conversationId: string, senderId: string): string =>
  JSON.stringify([conversationId, senderId]);

/** Tracks the statuses shown to this user, per conversation and sender. */
export class UserStatus {
  readonly #d: UserStatusDeps;
  readonly #shown = new Map<string, Shown>();
  /** The signed time of the last status or message per (conversation, sender), ms, and which it was. */
  readonly #latest = new Map<string, { readonly at: number; readonly message: boolean }>();

  constructor(deps: UserStatusDeps) {
    this.#d = deps;
  }

  /** The statuses shown now in `conversationId` (all conversations when omitted). */
  current(conversationId?: string): StatusUpdate[] {
    return [...this.#shown.values()]
      .map((s) => s.update)
      .filter((u) => conversationId === undefined || u.conversationId === conversationId);
  }

  /**
   * @internal Routes a live delivery: true when it was a status (not a
   * message); a message of a sender with a status shown clears it first.
   */
  received(message: ReceivedMessage): boolean {
    const key = keyOf(message.conversationId, message.senderId);
    const signedAt = Date.parse(message.createdAt);
    if (message.event !== PRESENCE_FRAMES.statusUpdate) {
      if (message.event === 'message.new') {
        this.#advance(key, signedAt, true);
        this.#end(key, 'replied');
      }
      return false;
    }
    const parsed = StatusPayloadSchema.safeParse(message.payload);
    if (!parsed.success) {
      this.#d.logger.warn('a status does not fit the status payload', {
        conversationId: message.conversationId,
      });
      return true;
    }
    if (!this.#advance(key, signedAt, false)) {
      this.#d.logger.debug('a stale status was ignored', { conversationId: message.conversationId });
      return true;
    }
    const p = parsed.data;
    if (p.state === 'idle') {
      this.#end(key, 'cleared');
      return true;
    }
    const ttl = Math.min(p.ttl_ms ?? STATUS_LIMITS.defaultTtlMs, STATUS_LIMITS.maxTtlMs);
    const previous = this.#shown.get(key);
    if (previous !== undefined) this.#d.clock.clearTimeout(previous.timer);
    const update: StatusUpdate = {
      conversationId: message.conversationId,
      senderId: message.senderId,
      state: 'working',
      text: p.text ?? null,
      expiresAt: this.#d.clock.now() + ttl,
    };
    const timer = this.#d.clock.setTimeout(() => this.#end(key, 'expired'), ttl, { background: true });
    this.#shown.set(key, { update, timer });
    // A refresh of the same status changes nothing on screen: only a change is emitted.
    if (previous === undefined || previous.update.text !== update.text) this.#d.emit(update);
    return true;
  }

  /** Clears every status without emitting (the client disconnected). */
  clear(): void {
    for (const s of this.#shown.values()) this.#d.clock.clearTimeout(s.timer);
    this.#shown.clear();
  }

  /**
   * Records a signed time; false when it is older than the last one seen (a
   * status signed in the same millisecond as a message is older: the reply wins).
   */
  #advance(key: string, signedAt: number, message: boolean): boolean {
    const last = this.#latest.get(key);
    if (last !== undefined && (signedAt < last.at || (signedAt === last.at && last.message && !message)))
      return false;
    this.#latest.set(key, { at: signedAt, message });
    return true;
  }

  #end(key: string, reason: 'cleared' | 'replied' | 'expired'): void {
    const shown = this.#shown.get(key);
    if (shown === undefined) return;
    this.#d.clock.clearTimeout(shown.timer);
    this.#shown.delete(key);
    const { conversationId, senderId } = shown.update;
    this.#d.emit({ conversationId, senderId, state: 'idle', text: null, reason });
  }
}
