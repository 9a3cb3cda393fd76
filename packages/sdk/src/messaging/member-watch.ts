/**
 * The recipient set of each conversation, as last sealed for. The service
 * lists a conversation's members; a member it adds receives every later
 * message, so a change is reported (`membersChanged`) and, under the
 * `'block'` policy, a change that **adds** a recipient is refused until
 * {@link MemberWatch.confirmMembers}. A removal only narrows who can read,
 * so it is reported but never refused. The first set seen for a conversation
 * is trusted (as keys are, on first use). Kept in memory (at most 10 000
 * conversations, oldest dropped first).
 *
 * In a group the recipients are only the members of the owner-signed roster
 * (docs/groups.md): members the service lists beyond it are never sealed to,
 * and {@link MemberWatch.observeUnsigned} reports them (`unsigned`); under
 * `'block'` the send is refused while the service lists any.
 *
 * @module
 */
import { CryptoError } from '../core/errors/crypto-error.js';
import type { KeyChangePolicy } from './key-pins.js';

/** Payload of the `membersChanged` event. */
export interface MembersChangedEvent {
  readonly conversationId: string;
  /** Recipients not in the set last sealed for. */
  readonly added: readonly string[];
  /** Recipients of the last set that are gone. */
  readonly removed: readonly string[];
  /** True when the send was refused (`'block'` and someone was added, or listed outside the roster). */
  readonly blocked: boolean;
  /**
   * Members the service lists in a group that its owner-signed roster does
   * not (added by the service, or removed by the owner but still listed):
   * nothing is sealed to them. Empty for other changes.
   */
  readonly unsigned: readonly string[];
}

/** Options of {@link MemberWatch}. */
export interface MemberWatchOptions {
  /** @defaultValue `'warn'` */
  policy?: KeyChangePolicy;
  /** Called for each change (once per distinct new set). */
  onMembersChanged?: (event: MembersChangedEvent) => void;
}

const MAX_CONVERSATIONS = 10_000;

/** Last recipient set per conversation. */
export class MemberWatch {
  readonly #policy: KeyChangePolicy;
  readonly #on: ((event: MembersChangedEvent) => void) | undefined;
  readonly #last = new Map<string, ReadonlySet<string>>();
  readonly #pending = new Map<string, ReadonlySet<string>>();
  readonly #unsigned = new Map<string, string>();

  constructor(options: MemberWatchOptions = {}) {
    this.#policy = options.policy ?? 'warn';
    this.#on = options.onMembersChanged;
  }

  /**
   * Records the set about to be sealed for.
   *
   * @throws {@link CryptoError} `MEMBERS_CHANGED` under `'block'` when a recipient was added.
   */
  observe(conversationId: string, recipients: readonly string[]): void {
    const next = new Set(recipients);
    const last = this.#last.get(conversationId);
    if (last === undefined) return this.#remember(conversationId, next);
    const added = [...next].filter((id) => !last.has(id)).sort();
    const removed = [...last].filter((id) => !next.has(id)).sort();
    if (added.length === 0 && removed.length === 0) return;
    const blocked = this.#policy === 'block' && added.length > 0;
    const pending = this.#pending.get(conversationId);
    const repeat =
      pending !== undefined && pending.size === next.size && [...next].every((id) => pending.has(id));
    if (!repeat) this.#on?.({ conversationId, added, removed, blocked, unsigned: [] });
    if (!blocked) {
      this.#pending.delete(conversationId);
      return this.#remember(conversationId, next);
    }
    this.#pending.set(conversationId, next);
    throw new CryptoError({
      code: 'MEMBERS_CHANGED',
      message: `The members of conversation ${conversationId} changed; call confirmMembers() to seal for them.`,
    });
  }

  /**
   * Records the members the service lists in a group beyond its signed
   * roster (none are sealed to). Reported once per distinct set.
   *
   * @throws {@link CryptoError} `MEMBERS_CHANGED` under `'block'` while `unsigned` is not empty.
   */
  observeUnsigned(conversationId: string, unsigned: readonly string[]): void {
    const sorted = [...unsigned].sort();
    const key = sorted.join('\n');
    const last = this.#unsigned.get(conversationId) ?? '';
    if (key !== last) {
      this.#unsigned.delete(conversationId);
      if (key !== '') {
        if (this.#unsigned.size >= MAX_CONVERSATIONS)
          this.#unsigned.delete(this.#unsigned.keys().next().value!);
        this.#unsigned.set(conversationId, key);
      }
    }
    if (sorted.length === 0) return;
    const blocked = this.#policy === 'block';
    if (key !== last) this.#on?.({ conversationId, added: sorted, removed: [], blocked, unsigned: sorted });
    if (!blocked) return;
    throw new CryptoError({
      code: 'MEMBERS_CHANGED',
      message: `The service lists members of group ${conversationId} that its owner's signed roster does not; nothing is sealed until they are gone or in the roster.`,
    });
  }

  /** Accepts the refused set of a conversation. Returns false when none was waiting. */
  confirmMembers(conversationId: string): boolean {
    const next = this.#pending.get(conversationId);
    if (next === undefined) return false;
    this.#pending.delete(conversationId);
    this.#remember(conversationId, next);
    return true;
  }

  #remember(conversationId: string, set: ReadonlySet<string>): void {
    this.#last.delete(conversationId);
    if (this.#last.size >= MAX_CONVERSATIONS) this.#last.delete(this.#last.keys().next().value!);
    this.#last.set(conversationId, set);
  }
}
