/**
 * The signed group roster: canonical bytes (domain-separated, independent of
 * member order), signatures, and what a GroupRosterBook accepts: the first
 * roster under the directory's key, then only higher versions signed by the
 * owner of the held one under its bound key. Fuzzed: no served value makes
 * `accept` throw anything but GROUP_ROSTER_INVALID.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCryptoError } from '../../../packages/sdk/src/core/errors/index.js';
import {
  GROUP_ROSTER_CONTEXT,
  groupRosterBytes,
  SignedGroupRosterSchema,
  type SignedGroupRoster,
} from '../../../packages/sdk/src/core/protocol/group-roster.js';
import { generateKeys } from '../../../packages/sdk/src/crypto/keys.js';
import {
  buildGroupRoster,
  GroupRosterBook,
  rosterFingerprint,
  signGroupRoster,
} from '../../../packages/sdk/src/messaging/roster.js';

const owner = generateKeys();
const heir = generateKeys();
const bot = generateKeys();
const ghost = generateKeys();
const G = 'group-1';

const entry = (id: string, kind: 'user' | 'agent', k: ReturnType<typeof generateKeys>) => ({
  id,
  kind,
  encryption: k.encryption.publicKey,
  signing: k.signing.publicKey,
});

function roster(version: number, members = [entry('u1', 'user', owner), entry('a1', 'agent', bot)], o = {}) {
  return buildGroupRoster({ conversationId: G, version, ownerId: 'u1', members, ...o });
}

const directory = (keys: Record<string, Uint8Array>) => async (id: string) => keys[id];
const ownerKey = directory({ u1: owner.signing.publicKey, u2: heir.signing.publicKey });

async function refusal(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    expect(isCryptoError(err, 'GROUP_ROSTER_INVALID')).toBe(true);
    return /\((\w+)\)\.$/.exec((err as Error).message)?.[1];
  }
}

describe('groupRosterBytes', () => {
  it('starts with the domain label and does not depend on member order', () => {
    const a = roster(1);
    const b = { ...a, members: [...a.members].reverse() };
    const bytes = groupRosterBytes(a);
    expect(new TextDecoder().decode(bytes.subarray(0, GROUP_ROSTER_CONTEXT.length))).toBe(
      GROUP_ROSTER_CONTEXT,
    );
    expect(groupRosterBytes(b)).toEqual(bytes);
    expect(groupRosterBytes({ ...a, version: 2 })).not.toEqual(bytes);
  });

  it('binds 64-hex SHA-256 fingerprints of both keys', () => {
    const r = roster(1);
    expect(r.members.find((m) => m.id === 'a1')).toEqual({
      id: 'a1',
      kind: 'agent',
      enc: rosterFingerprint(bot.encryption.publicKey),
      sig: rosterFingerprint(bot.signing.publicKey),
    });
    expect(r.members[0]!.enc).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('GroupRosterBook', () => {
  it('accepts a first roster under the directory key, then higher versions by its owner', async () => {
    const book = new GroupRosterBook();
    await book.accept(G, await signGroupRoster(roster(1), owner.signing), ownerKey);
    const v3 = roster(3, [entry('u1', 'user', owner)]);
    expect((await book.accept(G, await signGroupRoster(v3, owner.signing), ownerKey)).version).toBe(3);
    // The same version again is fine when identical.
    await book.accept(G, await signGroupRoster(v3, owner.signing), ownerKey);
    expect(book.current(G)?.members.map((m) => m.id)).toEqual(['u1']);
  });

  it('refuses a replayed older version, another roster at the same version, and none at all', async () => {
    const book = new GroupRosterBook();
    const v1 = await signGroupRoster(roster(1), owner.signing);
    await book.accept(
      G,
      await signGroupRoster(roster(2, [entry('u1', 'user', owner)]), owner.signing),
      ownerKey,
    );
    expect(await refusal(book.accept(G, v1, ownerKey))).toBe('rolled_back');
    const other = await signGroupRoster(roster(2), owner.signing);
    expect(await refusal(book.accept(G, other, ownerKey))).toBe('equivocation');
    expect(await refusal(book.accept(G, null, ownerKey))).toBe('missing');
  });

  it('refuses a member slipped in after signing, another signer, another key, another group', async () => {
    const book = new GroupRosterBook();
    const signed = await signGroupRoster(roster(1), owner.signing);
    const forged: SignedGroupRoster = {
      ...signed,
      roster: {
        ...signed.roster,
        members: [...signed.roster.members, { id: 'g1', kind: 'agent', enc: 'a'.repeat(64), sig: null }],
      },
    };
    expect(await refusal(book.accept(G, forged, ownerKey))).toBe('signature');
    // The service signs with a key of its own and serves it as the owner's: the directory disagrees.
    const byService = await signGroupRoster(roster(1, [entry('u1', 'user', ghost)]), ghost.signing);
    expect(await refusal(book.accept(G, byService, ownerKey))).toBe('signer_key');
    expect(await refusal(book.accept('group-2', signed, ownerKey))).toBe('wrong_group');

    await book.accept(G, signed, ownerKey);
    // A member (not the owner) signs the next version.
    const members = [entry('u1', 'user', owner), entry('u2', 'user', heir)];
    const byMember = await signGroupRoster(roster(2, members, { signedBy: 'u2' }), heir.signing);
    expect(await refusal(book.accept(G, byMember, ownerKey))).toBe('not_signed_by_owner');
  });

  it('follows a hand-over: the old owner names the heir, who signs the next version', async () => {
    const book = new GroupRosterBook();
    const both = [entry('u1', 'user', owner), entry('u2', 'user', heir)];
    await book.accept(G, await signGroupRoster(roster(1, both), owner.signing), ownerKey);
    const handOver = roster(2, [entry('u2', 'user', heir)], { ownerId: 'u2', signedBy: 'u1' });
    await book.accept(G, await signGroupRoster(handOver, owner.signing), ownerKey);
    const next = roster(3, [entry('u2', 'user', heir), entry('a1', 'agent', bot)], { ownerId: 'u2' });
    expect((await book.accept(G, await signGroupRoster(next, heir.signing), ownerKey)).owner_id).toBe('u2');
    // The old owner can no longer sign.
    const stale = roster(4, [entry('u2', 'user', heir)], { ownerId: 'u2', signedBy: 'u1' });
    expect(await refusal(book.accept(G, await signGroupRoster(stale, owner.signing), ownerKey))).toBe(
      'not_signed_by_owner',
    );
  });

  it('fuzz: any served value is accepted as the signed roster or refused with GROUP_ROSTER_INVALID', async () => {
    const signed = await signGroupRoster(roster(1), owner.signing);
    const mutate = fc.oneof(
      fc.anything(),
      fc.record({ roster: fc.anything(), signer_key: fc.string(), signature: fc.string() }),
      fc
        .constantFrom(...Object.keys(signed.roster))
        .chain((field) =>
          fc.anything().map((v) => ({ ...signed, roster: { ...signed.roster, [field]: v } })),
        ),
    );
    await fc.assert(
      fc.asyncProperty(mutate, async (served) => {
        const book = new GroupRosterBook();
        try {
          await book.accept(G, served, ownerKey);
          expect(SignedGroupRosterSchema.parse(served).signature).toBe(signed.signature);
        } catch (err) {
          expect(isCryptoError(err, 'GROUP_ROSTER_INVALID')).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
