/**
 * Signed group rosters on the client side (docs/groups.md, "Signed roster"):
 * the owner signs each version ({@link signGroupRoster}); every member checks
 * what the service serves against the last version it accepted
 * ({@link GroupRosterBook}) and seals only to the members, and the keys, it
 * binds.
 *
 * What a {@link GroupRosterBook} accepts for a group:
 *
 * - the first roster it sees: signed by `signed_by`, a user member of that
 *   roster, under the key the roster binds to it **and** the directory (with
 *   its pins) gives for it;
 * - afterwards: a higher version, signed by the `owner_id` of the version it
 *   holds, under the key that version binds to that owner; the same version
 *   only with the same content. A lower version (a replay), another signer,
 *   another key or a bad signature is refused with a {@link index!CryptoError | CryptoError}
 *   `GROUP_ROSTER_INVALID`.
 *
 * Accepted versions are kept in memory (at most 10 000 groups, oldest dropped first).
 *
 * @module
 */
import { fromBase64, toBase64 } from '../core/encoding.js';
import { CryptoError } from '../core/errors/crypto-error.js';
import {
  GROUP_ROSTER_FORMAT,
  groupRosterBytes,
  SignedGroupRosterSchema,
  type GroupRoster,
  type GroupRosterMember,
  type SignedGroupRoster,
} from '../core/protocol/group-roster.js';
import { defaultBackend } from '../crypto/backend/node-default.js';
import type { CryptoBackend, RawKeyPair } from '../crypto/backend/types.js';

/** Why a roster was refused (`GROUP_ROSTER_INVALID`'s `reason` in the message). */
export type GroupRosterProblem =
  | 'missing'
  | 'malformed'
  | 'wrong_group'
  | 'rolled_back'
  | 'equivocation'
  | 'not_signed_by_owner'
  | 'signer_key'
  | 'signature'
  | 'not_owner';

const PROBLEM_TEXT: Readonly<Record<GroupRosterProblem, string>> = {
  missing: 'the service served no signed roster',
  malformed: 'the roster is malformed',
  wrong_group: 'the roster is for another group',
  rolled_back: 'the roster is older than one already accepted',
  equivocation: 'the roster differs from the one accepted at the same version',
  not_signed_by_owner: 'the roster is not signed by the owner of the accepted roster',
  signer_key: "the roster is not signed with the owner's bound key",
  signature: 'the roster signature does not verify',
  not_owner: 'this client is not the owner the roster names, so it cannot sign the next version',
};

/** The `GROUP_ROSTER_INVALID` error for `problem` (ids only, never keys). */
export function groupRosterError(conversationId: string, problem: GroupRosterProblem): CryptoError {
  return new CryptoError({
    code: 'GROUP_ROSTER_INVALID',
    message: `Group ${conversationId}: ${PROBLEM_TEXT[problem]} (${problem}).`,
  });
}

/** SHA-256 of a raw public key, 64 lowercase hex: the fingerprint a roster binds. */
export function rosterFingerprint(publicKey: Uint8Array, backend: CryptoBackend = defaultBackend()): string {
  let out = '';
  for (const b of backend.sha256(publicKey)) out += HEX[b]!;
  return out;
}

const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** A member to put in a roster, with its current public keys. */
export interface RosterMemberKeys {
  readonly id: string;
  readonly kind: 'user' | 'agent';
  /** Its current X25519 public key. */
  readonly encryption: Uint8Array;
  /** Its current Ed25519 public key, if it has one. */
  readonly signing: Uint8Array | undefined;
}

/** What {@link buildGroupRoster} needs. */
export interface BuildGroupRosterInput {
  readonly conversationId: string;
  readonly version: number;
  /** The owner after this version (signs the next one). */
  readonly ownerId: string;
  /** The signer: the owner of the previous version (`ownerId` unless the group is handed over). */
  readonly signedBy?: string;
  readonly members: readonly RosterMemberKeys[];
  readonly backend?: CryptoBackend;
}

/** The roster content binding each member's current keys (sorted by id). */
export function buildGroupRoster(input: BuildGroupRosterInput): GroupRoster {
  const backend = input.backend ?? defaultBackend();
  const members: GroupRosterMember[] = [...input.members]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((m) => ({
      id: m.id,
      kind: m.kind,
      enc: rosterFingerprint(m.encryption, backend),
      sig: m.signing === undefined ? null : rosterFingerprint(m.signing, backend),
    }));
  return {
    format: GROUP_ROSTER_FORMAT,
    conversation_id: input.conversationId,
    version: input.version,
    owner_id: input.ownerId,
    signed_by: input.signedBy ?? input.ownerId,
    members,
  };
}

/** Signs a roster with the signer's Ed25519 key pair (`roster.signed_by`'s). */
export async function signGroupRoster(
  roster: GroupRoster,
  signing: RawKeyPair,
  backend: CryptoBackend = defaultBackend(),
): Promise<SignedGroupRoster> {
  const signature = await backend.async.ed25519Sign(signing, groupRosterBytes(roster));
  return { roster, signer_key: toBase64(signing.publicKey), signature: toBase64(signature) };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i]! ^ b[i]!;
  return d === 0;
}

/** Options of {@link GroupRosterBook}. */
export interface GroupRosterBookOptions {
  /** @defaultValue node:crypto on Node, else the portable backend */
  backend?: CryptoBackend;
}

interface Held {
  readonly roster: GroupRoster;
  readonly bytes: Uint8Array;
}

const MAX_GROUPS = 10_000;

/** The last roster version accepted per group: versions only go forward. */
export class GroupRosterBook {
  readonly #backend: CryptoBackend;
  readonly #held = new Map<string, Held>();

  constructor(options: GroupRosterBookOptions = {}) {
    this.#backend = options.backend ?? defaultBackend();
  }

  /** The roster accepted last for a group, if any. */
  current(conversationId: string): GroupRoster | undefined {
    return this.#held.get(conversationId)?.roster;
  }

  /**
   * Checks `served` (the `roster` field the service gave for the group) and
   * keeps it when it is acceptable.
   *
   * @param signerKeyOf - the directory's (pinned) Ed25519 key of a principal, for a first roster.
   * @throws {@link index!CryptoError | CryptoError} `GROUP_ROSTER_INVALID`.
   */
  async accept(
    conversationId: string,
    served: unknown,
    signerKeyOf: (principalId: string) => Promise<Uint8Array | undefined>,
  ): Promise<GroupRoster> {
    const fail = (p: GroupRosterProblem) => groupRosterError(conversationId, p);
    if (served === undefined || served === null) throw fail('missing');
    const parsed = SignedGroupRosterSchema.safeParse(served);
    if (!parsed.success) throw fail('malformed');
    const { roster } = parsed.data;
    if (roster.conversation_id !== conversationId) throw fail('wrong_group');
    const bytes = groupRosterBytes(roster);
    const signerKey = fromBase64(parsed.data.signer_key)!;
    const held = this.#held.get(conversationId);
    let bound: string | null | undefined;
    if (held !== undefined) {
      if (roster.version < held.roster.version) throw fail('rolled_back');
      if (roster.version === held.roster.version) {
        if (!sameBytes(bytes, held.bytes)) throw fail('equivocation');
        return held.roster;
      }
      if (roster.signed_by !== held.roster.owner_id) throw fail('not_signed_by_owner');
      bound = held.roster.members.find((m) => m.id === roster.signed_by)?.sig;
    } else {
      const signer = roster.members.find((m) => m.id === roster.signed_by);
      if (signer === undefined || signer.kind !== 'user') throw fail('not_signed_by_owner');
      bound = signer.sig;
      let known: Uint8Array | undefined;
      try {
        known = await signerKeyOf(roster.signed_by);
      } catch {
        known = undefined;
      }
      if (known === undefined || !sameBytes(known, signerKey)) throw fail('signer_key');
    }
    if (bound == null || rosterFingerprint(signerKey, this.#backend) !== bound) throw fail('signer_key');
    const signature = fromBase64(parsed.data.signature)!;
    if (!(await this.#backend.async.ed25519Verify(signerKey, bytes, signature))) throw fail('signature');
    // A concurrent accept may have moved on meanwhile: keep the newest.
    const now = this.#held.get(conversationId);
    if (now !== undefined && now.roster.version >= roster.version) {
      if (now.roster.version === roster.version) return now.roster;
      throw fail('rolled_back');
    }
    this.#held.delete(conversationId);
    if (this.#held.size >= MAX_GROUPS) this.#held.delete(this.#held.keys().next().value!);
    this.#held.set(conversationId, { roster, bytes });
    return roster;
  }
}
