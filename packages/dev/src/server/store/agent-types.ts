/**
 * State of part 2: agents (tokens, keys, governance), conversations and
 * messages. Same rules as `types.ts`: every read-then-write rule is one
 * atomic store method, times are ms since the epoch read from the server's
 * clock by the caller.
 *
 * @module
 */
import type { KeyStatementWire } from 'agent-messaging-sdk/protocol';

/** Governance level: none, L1 restricted, L2 suspended, L3 banned. */
export type GovernanceLevel = 'none' | 'L1' | 'L2' | 'L3';

/** One agent token: only its bcrypt hash is kept. */
export interface AgentTokenRecord {
  readonly tokenId: string;
  /** bcrypt hash of the token. */
  readonly hash: string;
  readonly createdAtMs: number;
  /** End of the 7-day grace after a normal regeneration; undefined for the current token. */
  readonly validUntilMs: number | undefined;
}

/** One generation of an agent's public keys (base64, 32 bytes each). */
export interface AgentKeyGeneration {
  readonly publicKey: string;
  readonly signingPublicKey: string;
  /** Fingerprint of the X25519 key (16 hex characters). */
  readonly keyId: string;
  /** Fingerprint of the Ed25519 key (16 hex characters). */
  readonly signingKeyId: string;
  readonly registeredAtMs: number;
  /** End of validity (grace of a regeneration); undefined while current without an end. */
  readonly validUntilMs: number | undefined;
  /** Number of the generation: 1 for the first registered, +1 per registration after it (absent on old records: 1). */
  readonly generation?: number;
  /**
   * The key succession statement the agent uploaded with this generation (signed
   * by the previous generation; none after an emergency, a self-heal or the
   * first registration), stored as received and served with the keys.
   */
  readonly statement?: KeyStatementWire;
}

/** An agent's governance state. */
export interface GovernanceRecord {
  readonly level: GovernanceLevel;
  /** Reason given by the platform; null when none. */
  readonly reason: string | null;
  readonly updatedAtMs: number;
}

/** An agent. */
export interface AgentRecord {
  readonly agentId: string;
  readonly ownerId: string;
  readonly name: string;
  readonly createdAtMs: number;
  /** Current token (validUntilMs undefined) and tokens in grace; empty after DELETE /agents/:id/token. */
  readonly tokens: readonly AgentTokenRecord[];
  /** The registered key pair senders wrap to; undefined before registration or after an emergency rotation. */
  readonly keys: AgentKeyGeneration | undefined;
  /** Older key pairs still inside their grace (newest first). */
  readonly retiredKeys: readonly AgentKeyGeneration[];
  /** True after a regeneration until the agent registers its new key pair. */
  readonly keyRotationPending: boolean;
  readonly governance: GovernanceRecord;
}

/** Agents. */
export interface AgentStore {
  /** Creates an agent unless its owner already has `maxPerOwner`. Atomic. */
  create(record: AgentRecord, maxPerOwner: number): Promise<AgentRecord | 'limit'>;
  get(agentId: string): Promise<AgentRecord | undefined>;
  listByOwner(ownerId: string): Promise<readonly AgentRecord[]>;
  /** Every agent, oldest first. */
  all(): Promise<readonly AgentRecord[]>;
  /**
   * Applies `change` to the agent atomically; `change` returns the new record
   * or a refusal value that is passed back unchanged.
   */
  update<R>(
    agentId: string,
    change: (agent: AgentRecord) => AgentRecord | { readonly refused: R },
  ): Promise<AgentRecord | { readonly refused: R } | undefined>;
}

/** Relation states between a user and an agent. */
export type RelationState = 'established' | 'revoked' | 'suspended';

/** A 1:1 conversation between a user and an agent, and their relation. */
export interface ConversationRecord {
  readonly conversationId: string;
  readonly userId: string;
  readonly agentId: string;
  readonly state: RelationState;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

/** Conversations. */
export interface ConversationStore {
  /**
   * The conversation of (user, agent): created when missing, re-established
   * when revoked. `changed` is false when it was already established or is
   * suspended (then nothing changes). Atomic.
   */
  establish(
    userId: string,
    agentId: string,
    newId: string,
    nowMs: number,
  ): Promise<{
    readonly conversation: ConversationRecord;
    readonly changed: boolean;
    readonly created: boolean;
  }>;
  get(conversationId: string): Promise<ConversationRecord | undefined>;
  listByUser(userId: string): Promise<readonly ConversationRecord[]>;
  listByAgent(agentId: string): Promise<readonly ConversationRecord[]>;
  /**
   * Moves the relation from one of `from` to `to`; undefined when the
   * conversation is missing or not in `from`. Atomic.
   */
  transition(
    conversationId: string,
    from: readonly RelationState[],
    to: RelationState,
    nowMs: number,
  ): Promise<ConversationRecord | undefined>;
}

/** A relayed message: ciphertext only. */
export interface MessageRecord {
  /** Per-server sequence number: the inbox cursor. */
  readonly seq: number;
  readonly messageId: string;
  readonly conversationId: string;
  readonly senderId: string;
  /** `created_at` from the envelope header. */
  readonly createdAt: string;
  readonly receivedAtMs: number;
  /** The sealed envelope, standard base64. */
  readonly wireEnvelope: string;
}

/** Messages of conversations. */
export interface MessageStore {
  /**
   * Appends a message unless the conversation already has one with this id:
   * then returns the existing one with `duplicate: true`. Atomic.
   */
  append(
    message: Omit<MessageRecord, 'seq'>,
  ): Promise<{ readonly message: MessageRecord; readonly duplicate: boolean }>;
  /** Messages of a conversation with `seq > after`, oldest first, at most `limit`. */
  list(conversationId: string, after: number, limit: number): Promise<readonly MessageRecord[]>;
}
