/**
 * Public keys of peers (users, agents, the system sender) and the members of
 * conversations, fetched from the service and cached for `ttlMs`.
 *
 * Keys rotate (an agent's token regeneration brings a new pair, the old one
 * stays valid for its grace), so an entry is only trusted for `ttlMs` and is
 * dropped at once by {@link KeyDirectory.invalidate}: the sender calls it when
 * the service says an envelope misses a recipient's current key, and a
 * receiver when a signature fails to verify, then asks again.
 *
 * Concurrent lookups of one id share one request; a failed lookup is not
 * cached.
 *
 * @module
 */
import { systemClock, type Clock } from '../core/clock.js';
import { fromBase64 } from '../core/encoding.js';
import { ConfigurationError } from '../core/errors/configuration-error.js';
import { ValidationError } from '../core/errors/validation-error.js';
import { ed25519KeyProblem } from '../crypto/ed25519-rules.js';
import type { GroupRoster } from '../core/protocol/group-roster.js';
import { GroupRosterBook } from './roster.js';
import type { KeyStatementWire } from '../core/protocol/key-statement.js';
import type { ConversationDetail } from './wire/conversations.js';
import type { PrincipalKeys } from './wire/keys.js';

/** The id of the system sender, whose keys come from `GET /system/keys`. */
export const SYSTEM_PRINCIPAL_ID = 'system';

/** Every default of the key directory. */
export const DEFAULT_KEY_DIRECTORY = {
  /** 5 minutes: a rotated key is picked up within this time even without an error. */
  ttlMs: 300_000,
  /** Entries kept at most (oldest dropped first). */
  maxEntries: 10_000,
  /**
   * 7 days: the longest a retired generation is used after it was retired, whatever
   * `valid_until` says (and when the service gives neither time, after it was first seen).
   */
  retiredGraceMs: 7 * 24 * 3_600_000,
} as const satisfies { ttlMs: number; maxEntries: number; retiredGraceMs: number };

/** Where the directory gets keys: an {@link AgentApi}, or the user client's API. */
export interface KeySource {
  /** `GET /keys/:principal_id`. */
  publicKeys(principalId: string): Promise<PrincipalKeys>;
  /** `GET /system/keys`. */
  systemKeys(): Promise<PrincipalKeys>;
  /** `GET /conversations/:id` (members with their public keys). */
  conversation(conversationId: string): Promise<ConversationDetail>;
}

/** Options of {@link createKeyDirectory}. */
export interface KeyDirectoryOptions {
  /** Where keys come from (an `AgentApi` fits). */
  api: KeySource;
  /** Time source of the cache. @defaultValue `systemClock` */
  clock?: Clock;
  /** How long a fetched entry is used, ms. @defaultValue `300000` (5 minutes) */
  ttlMs?: number;
  /**
   * Pinned keys every answer is checked against (`KeyPins`): retired generations
   * then come only from verified key succession statements. Without pins, the
   * service's `retired` list is taken as it is (tests and tools only).
   */
  pins?: { check(keys: PeerKeys): Promise<PeerKeys> };
  /**
   * The signed group rosters accepted so far (docs/groups.md, "Signed roster").
   * @defaultValue a new, empty book
   */
  rosters?: GroupRosterBook;
}

/** A group's membership as its owner signed it, beside what the service lists. */
export interface GroupMembership {
  /** The accepted owner-signed roster. */
  readonly roster: GroupRoster;
  /** Members the service lists that the roster does not: nothing is sealed to them. */
  readonly unsigned: readonly string[];
}

/** A retired key generation still in grace. */
export interface RetiredPeerKey {
  readonly encryption: Uint8Array;
  readonly signing: Uint8Array | undefined;
  /** End of its grace, ms since the epoch (undefined when the service did not say). */
  readonly validUntilMs: number | undefined;
  /**
   * When it was retired, ms since the epoch (undefined when the service did not
   * say). Its signing key is accepted only for messages created before this.
   */
  readonly retiredAtMs: number | undefined;
}

/** A retired Ed25519 key and when it was retired. */
export interface RetiredSigningKey {
  readonly key: Uint8Array;
  /** Retirement time, ms since the epoch: the key signs only messages created before it. */
  readonly retiredAtMs: number;
}

/** A peer's public keys, decoded. */
export interface PeerKeys {
  readonly id: string;
  /** `user`, `agent`, `system`, or another value kept as-is. */
  readonly kind: string;
  /** Current X25519 key: senders must wrap to it. */
  readonly encryption: Uint8Array;
  /** Current Ed25519 key; undefined for a user whose backup has no signing key. */
  readonly signing: Uint8Array | undefined;
  /**
   * Generations in grace, newest first. Through {@link KeyPins} (the Agent and
   * the UserClient), only generations a key succession statement vouched for.
   */
  readonly retired: readonly RetiredPeerKey[];
  /** Number of the current generation, as the service says (not trusted for anything but ordering). */
  readonly generation?: number | undefined;
  /**
   * Key succession statements the service served (wire form, shape-checked,
   * unverified): {@link KeyPins} decodes and verifies them only when the
   * current generation differs from the pin.
   */
  readonly statements?: readonly KeyStatementWire[];
}

/** Public keys of peers and members of conversations, cached. */
export interface KeyDirectory {
  /** The peer's decoded keys (retired generations past their grace left out). */
  keys(principalId: string): Promise<PeerKeys>;
  /** The peer's current X25519 public key. */
  encryptionKey(principalId: string): Promise<Uint8Array>;
  /** The peer's current Ed25519 public key, if it has one. */
  signingKey(principalId: string): Promise<Uint8Array | undefined>;
  /** Current and retired (in grace) Ed25519 keys, current first. */
  signingKeys(principalId: string): Promise<readonly Uint8Array[]>;
  /**
   * Retired (in grace) Ed25519 keys with their retirement time, newest first;
   * generations whose retirement time is unknown are left out.
   */
  retiredSigningKeys(principalId: string): Promise<readonly RetiredSigningKey[]>;
  /** Forgets the cached keys of one peer (and conversations listing it), or everything. */
  invalidate(principalId?: string): void;
  /**
   * Member ids of a conversation (its user and agent). For a group: the
   * members both listed by the service and in the owner-signed roster.
   *
   * @throws {@link index!CryptoError | CryptoError} `GROUP_ROSTER_INVALID` for a group whose roster is missing or refused.
   */
  conversationMembers(conversationId: string): Promise<string[]>;
  /**
   * The signed roster of a group and the listed members outside it;
   * undefined for a one-to-one conversation.
   *
   * @throws {@link index!CryptoError | CryptoError} `GROUP_ROSTER_INVALID`.
   */
  groupMembership(conversationId: string): Promise<GroupMembership | undefined>;
  /** Forgets a cached conversation. */
  invalidateConversation(conversationId: string): void;
}

interface Conversation {
  readonly detail: ConversationDetail;
  readonly membership: GroupMembership | undefined;
}

interface Entry<T> {
  readonly value: Promise<T>;
  readonly expiresAt: number;
}

const decoded = (b64: string): Uint8Array => fromBase64(b64)!; // schemas guarantee 32-byte base64

/**
 * Decodes a signing key, refusing one the SDK's Ed25519 rule refuses
 * (non-canonical, small-order or mixed-order; `packages/sdk/src/crypto/ed25519-rules.ts`):
 * the service must not hand out a key that verifies forgeries.
 */
function signingKey(b64: string | null | undefined, path: string): Uint8Array | undefined {
  if (b64 == null) return undefined;
  const key = decoded(b64);
  const problem = ed25519KeyProblem(key);
  if (problem === undefined) return key;
  throw new ValidationError({
    message: `The service returned an unacceptable Ed25519 signing key (${problem}) at ${path}`,
    issues: [{ path: path.split('.'), message: `unacceptable Ed25519 key (${problem})` }],
  });
}

/**
 * Decodes a wire {@link PrincipalKeys}, dropping retired generations whose grace ended by `nowMs`.
 *
 * @throws {@link ValidationError} when a signing key is not an acceptable Ed25519 key
 *   (non-canonical, small order or mixed order).
 */
export function toPeerKeys(
  k: PrincipalKeys,
  nowMs: number,
  firstSeenMs: (publicKey: string) => number = () => nowMs,
): PeerKeys {
  const grace = DEFAULT_KEY_DIRECTORY.retiredGraceMs;
  const retired: RetiredPeerKey[] = [];
  for (const [i, r] of (k.retired ?? []).entries()) {
    const retiredAt = r.retired_at == null ? undefined : Date.parse(r.retired_at);
    const bound = (retiredAt ?? firstSeenMs(r.public_key)) + grace;
    const until = Math.min(r.valid_until == null ? bound : Date.parse(r.valid_until), bound);
    if (until <= nowMs) continue;
    retired.push({
      encryption: decoded(r.public_key),
      signing: signingKey(r.signing_public_key, `retired.${i}.signing_public_key`),
      validUntilMs: r.valid_until == null && retiredAt === undefined ? undefined : until,
      retiredAtMs: retiredAt,
    });
  }
  return {
    id: k.id,
    kind: k.kind,
    encryption: decoded(k.public_key),
    signing: signingKey(k.signing_public_key, 'signing_public_key'),
    retired,
    ...(k.generation == null ? {} : { generation: k.generation }),
    ...(k.key_statements === undefined ? {} : { statements: k.key_statements }),
  };
}

function ttlOf(value: number | undefined): number {
  const v = value ?? DEFAULT_KEY_DIRECTORY.ttlMs;
  if (!(Number.isFinite(v) && v >= 0)) {
    throw new ConfigurationError({ option: 'ttlMs', message: 'Option "ttlMs" must be a finite number ≥ 0.' });
  }
  return v;
}

/**
 * Creates a key directory over `api`.
 *
 * @throws {@link ConfigurationError} for a bad `ttlMs`.
 * @example
 * ```ts
 * const directory = createKeyDirectory({ api });
 * const members = await directory.conversationMembers(conversationId);
 * const userKey = await directory.encryptionKey(members[0]!);
 * ```
 */
export function createKeyDirectory(options: KeyDirectoryOptions): KeyDirectory {
  const { api } = options;
  const clock = options.clock ?? systemClock;
  const ttlMs = ttlOf(options.ttlMs);
  const keyCache = new Map<string, Entry<PrincipalKeys>>();
  const convCache = new Map<string, Entry<Conversation>>();
  const rosters = options.rosters ?? new GroupRosterBook();
  // When a retired key without retired_at or valid_until was first seen (bounded retention).
  const firstSeen = new Map<string, number>();
  function seen(publicKey: string): number {
    const at = firstSeen.get(publicKey);
    if (at !== undefined) return at;
    if (firstSeen.size >= DEFAULT_KEY_DIRECTORY.maxEntries) firstSeen.delete(firstSeen.keys().next().value!);
    firstSeen.set(publicKey, clock.now());
    return clock.now();
  }
  const pins = options.pins;

  function cached<T>(cache: Map<string, Entry<T>>, id: string, load: () => Promise<T>): Promise<T> {
    const hit = cache.get(id);
    if (hit !== undefined && clock.now() < hit.expiresAt) return hit.value;
    if (cache.size >= DEFAULT_KEY_DIRECTORY.maxEntries) cache.delete(cache.keys().next().value!);
    const value = load();
    const entry = { value, expiresAt: clock.now() + ttlMs };
    cache.set(id, entry);
    // A failed lookup is forgotten, so the next call asks again.
    value.catch(() => cache.get(id) === entry && cache.delete(id));
    return value;
  }

  const wire = (id: string): Promise<PrincipalKeys> =>
    cached(keyCache, id, () => (id === SYSTEM_PRINCIPAL_ID ? api.systemKeys() : api.publicKeys(id)));

  function seed(detail: ConversationDetail): void {
    for (const m of detail.members) {
      if (m.public_key !== null && !keyCache.has(m.id)) {
        keyCache.set(m.id, { value: Promise.resolve(m), expiresAt: clock.now() + ttlMs });
      }
    }
  }

  const conversation = (conversationId: string): Promise<Conversation> =>
    cached(convCache, conversationId, async () => {
      const detail = await api.conversation(conversationId);
      seed(detail);
      if (!('kind' in detail) || detail.kind !== 'group') return { detail, membership: undefined };
      const roster = await rosters.accept(
        conversationId,
        detail.roster,
        async (id) => (await directory.keys(id)).signing,
      );
      const inRoster = new Set(roster.members.map((m) => m.id));
      const unsigned = detail.members.map((m) => m.id).filter((id) => !inRoster.has(id));
      return { detail, membership: { roster, unsigned } };
    });

  const directory: KeyDirectory = {
    async keys(id) {
      const k = toPeerKeys(await wire(id), clock.now(), seen);
      return pins === undefined ? k : pins.check(k);
    },
    encryptionKey: async (id) => (await directory.keys(id)).encryption,
    signingKey: async (id) => (await directory.keys(id)).signing,
    async retiredSigningKeys(id) {
      const out: RetiredSigningKey[] = [];
      for (const r of (await directory.keys(id)).retired) {
        if (r.signing !== undefined && r.retiredAtMs !== undefined) {
          out.push({ key: r.signing, retiredAtMs: r.retiredAtMs });
        }
      }
      return out;
    },
    async signingKeys(id) {
      const k = await directory.keys(id);
      const all = [k.signing, ...k.retired.map((r) => r.signing)];
      return all.filter((s): s is Uint8Array => s !== undefined);
    },
    invalidate(id) {
      if (id === undefined) {
        keyCache.clear();
        convCache.clear();
        return;
      }
      keyCache.delete(id);
    },
    async conversationMembers(conversationId) {
      const c = await conversation(conversationId);
      if (c.membership === undefined) return c.detail.members.map((m) => m.id);
      const inRoster = new Set(c.membership.roster.members.map((m) => m.id));
      return c.detail.members.map((m) => m.id).filter((id) => inRoster.has(id));
    },
    async groupMembership(conversationId) {
      return (await conversation(conversationId)).membership;
    },
    invalidateConversation(conversationId) {
      convCache.delete(conversationId);
    },
  };
  return directory;
}
