/**
 * The key directory with a fake key source and a virtual clock: caching for
 * `ttlMs`, shared lookups, failures not cached, invalidation, retired keys
 * past their grace, members seeded from the conversation answer.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createKeyDirectory,
  toPeerKeys,
  type KeySource,
} from '../../../packages/sdk/src/messaging/key-directory.js';
import type { ConversationDetail, PrincipalKeys } from '../../../packages/sdk/src/client/index.js';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { fromBase64, toBase64 } from '../../../packages/sdk/src/core/encoding.js';
import {
  isConfigurationError,
  isValidationError,
  ServiceError,
} from '../../../packages/sdk/src/core/errors/index.js';
import { keysFromPrivate } from '../../../packages/sdk/src/crypto/keys.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const key = (n: number): string => toBase64(new Uint8Array(32).fill(n));
/** A real Ed25519 public key (the directory refuses small-order and other unacceptable keys). */
const sigKey = (n: number): string =>
  toBase64(keysFromPrivate(new Uint8Array(32), new Uint8Array(32).fill(n)).signing.publicKey);

function keysOf(id: string, n: number, extra: Partial<PrincipalKeys> = {}): PrincipalKeys {
  return {
    id,
    kind: 'agent',
    public_key: key(n),
    signing_public_key: sigKey(n + 100),
    key_id: null,
    retired: [],
    ...extra,
  };
}

/** A key source that counts calls and serves the current answer of each id. */
function fakeSource(initial: Record<string, PrincipalKeys>) {
  const answers = new Map(Object.entries(initial));
  const calls: string[] = [];
  let failNext = false;
  const source: KeySource = {
    async publicKeys(id) {
      calls.push(id);
      if (failNext) {
        failNext = false;
        throw new ServiceError({ code: 'KEY_ENUMERATION_BLOCKED', status: 403, message: 'blocked' });
      }
      const a = answers.get(id);
      if (a === undefined)
        throw new ServiceError({ code: 'KEY_ENUMERATION_BLOCKED', status: 403, message: 'blocked' });
      return a;
    },
    async systemKeys() {
      calls.push('GET /system/keys');
      return keysOf('system', 50, { kind: 'system' });
    },
    async conversation(id) {
      calls.push(`conversation ${id}`);
      const detail: ConversationDetail = {
        conversation_id: id,
        user_id: 'u1',
        agent_id: 'a1',
        state: 'established',
        members: [keysOf('u1', 7, { kind: 'user' }), { id: 'a1', kind: 'agent', public_key: null }],
      };
      return detail;
    },
  };
  return { source, calls, answers, failOnce: () => (failNext = true) };
}

describe('createKeyDirectory', () => {
  it('caches keys for ttlMs and shares concurrent lookups', async () => {
    const clock = new ManualClock(T0);
    const { source, calls, answers } = fakeSource({ a1: keysOf('a1', 1) });
    const dir = createKeyDirectory({ api: source, clock, ttlMs: 60_000 });
    const [k1, k2] = await Promise.all([dir.encryptionKey('a1'), dir.encryptionKey('a1')]);
    expect(k1).toEqual(fromBase64(key(1)));
    expect(k2).toEqual(k1);
    expect(calls).toEqual(['a1']);
    answers.set('a1', keysOf('a1', 2));
    clock.advance(59_999);
    expect(await dir.encryptionKey('a1')).toEqual(fromBase64(key(1)));
    clock.advance(1);
    expect(await dir.encryptionKey('a1')).toEqual(fromBase64(key(2)));
    expect(calls).toEqual(['a1', 'a1']);
  });

  it('drops an entry on invalidate (one id, or all)', async () => {
    const { source, calls, answers } = fakeSource({ a1: keysOf('a1', 1), a2: keysOf('a2', 3) });
    const dir = createKeyDirectory({ api: source, clock: new ManualClock(T0) });
    await dir.keys('a1');
    await dir.keys('a2');
    answers.set('a1', keysOf('a1', 2));
    dir.invalidate('a1');
    expect(await dir.encryptionKey('a1')).toEqual(fromBase64(key(2)));
    dir.invalidate();
    await dir.keys('a2');
    expect(calls).toEqual(['a1', 'a2', 'a1', 'a2']);
  });

  it('does not cache a failed lookup', async () => {
    const { source, calls, failOnce } = fakeSource({ a1: keysOf('a1', 1) });
    const dir = createKeyDirectory({ api: source, clock: new ManualClock(T0) });
    failOnce();
    await expect(dir.keys('a1')).rejects.toMatchObject({ code: 'KEY_ENUMERATION_BLOCKED' });
    expect((await dir.keys('a1')).id).toBe('a1');
    expect(calls).toEqual(['a1', 'a1']);
  });

  it('serves the system sender from GET /system/keys', async () => {
    const { source, calls } = fakeSource({});
    const dir = createKeyDirectory({ api: source, clock: new ManualClock(T0) });
    expect(await dir.signingKey('system')).toEqual(fromBase64(sigKey(150)));
    expect(calls).toEqual(['GET /system/keys']);
  });

  it('lists signing keys current first, leaving out retired ones past their grace', async () => {
    const clock = new ManualClock(T0);
    const retired = [
      {
        public_key: key(3),
        signing_public_key: sigKey(103),
        key_id: null,
        valid_until: new Date(T0 + 1000).toISOString(),
      },
      {
        public_key: key(4),
        signing_public_key: sigKey(104),
        key_id: null,
        valid_until: new Date(T0 - 1).toISOString(),
      },
    ];
    const { source } = fakeSource({ a1: keysOf('a1', 1, { retired }) });
    const dir = createKeyDirectory({ api: source, clock, ttlMs: 0 });
    expect(await dir.signingKeys('a1')).toEqual([fromBase64(sigKey(101)), fromBase64(sigKey(103))]);
    clock.advance(1000);
    expect(await dir.signingKeys('a1')).toEqual([fromBase64(sigKey(101))]);
  });

  it('lists conversation members and seeds their keys from the same answer', async () => {
    const { source, calls } = fakeSource({ a1: keysOf('a1', 1) });
    const dir = createKeyDirectory({ api: source, clock: new ManualClock(T0) });
    expect(await dir.conversationMembers('c1')).toEqual(['u1', 'a1']);
    expect(await dir.encryptionKey('u1')).toEqual(fromBase64(key(7)));
    await dir.conversationMembers('c1');
    await dir.keys('a1'); // its key was null in the answer: looked up
    expect(calls).toEqual(['conversation c1', 'a1']);
    dir.invalidateConversation('c1');
    await dir.conversationMembers('c1');
    expect(calls).toEqual(['conversation c1', 'a1', 'conversation c1']);
  });

  it('refuses a bad ttlMs', () => {
    const { source } = fakeSource({});
    let err: unknown;
    try {
      createKeyDirectory({ api: source, ttlMs: -1 });
    } catch (e) {
      err = e;
    }
    expect(isConfigurationError(err)).toBe(true);
  });

  it('toPeerKeys keeps exactly the retired generations whose grace has not ended', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -10_000, max: 10_000 }), { maxLength: 6 }), (offsets) => {
        const retired = offsets.map((o, i) => ({
          public_key: key(i + 1),
          valid_until: new Date(T0 + o).toISOString(),
        }));
        const peer = toPeerKeys(keysOf('a1', 99, { retired }), T0);
        expect(peer.retired.map((r) => r.validUntilMs! - T0)).toEqual(offsets.filter((o) => o > 0));
      }),
    );
  });
});

describe('unacceptable signing keys', () => {
  it('refuses a small-order, mixed-order or non-canonical signing key with a ValidationError', () => {
    const bad = {
      small_order: toBase64(Uint8Array.of(1, ...new Uint8Array(31))), // the identity point
      mixed_order: toBase64(
        fromBase64('97rexbir6vaZWDmSIZt7Ij8d8/u+qRmETj98VUpD3UM=')!, // speccheck's mixed-order key
      ),
      non_canonical: toBase64(Uint8Array.of(0xee, ...new Uint8Array(30).fill(0xff), 0x7f)),
    };
    for (const [problem, signing] of Object.entries(bad)) {
      for (const record of [
        keysOf('a1', 1, { signing_public_key: signing }),
        keysOf('a1', 1, {
          retired: [{ public_key: key(2), signing_public_key: signing, valid_until: null }],
        }),
      ]) {
        let caught: unknown;
        try {
          toPeerKeys(record, T0);
        } catch (err) {
          caught = err;
        }
        expect(isValidationError(caught)).toBe(true);
        expect((caught as Error).message).toContain(`(${problem})`);
        expect((caught as Error).message).not.toContain(signing);
      }
    }
  });
});

describe('bounded retention of retired keys', () => {
  const DAY = 86_400_000;
  const iso = (ms: number): string => new Date(ms).toISOString();

  it('keeps a retired key at most 7 days after retired_at, whatever valid_until says', () => {
    const at = (retiredAgo: number, validUntil: string | null) =>
      toPeerKeys(
        keysOf('a1', 1, {
          retired: [{ public_key: key(2), valid_until: validUntil, retired_at: iso(T0 - retiredAgo) }],
        }),
        T0,
      ).retired.length;
    expect(at(6 * DAY, null)).toBe(1);
    expect(at(8 * DAY, null)).toBe(0);
    expect(at(8 * DAY, iso(T0 + 365 * DAY))).toBe(0);
  });

  it('without retired_at or valid_until, drops it 7 days after the directory first saw it', async () => {
    const clock = new ManualClock(T0);
    const answer = keysOf('a1', 1, { retired: [{ public_key: key(2), valid_until: null }] });
    const directory = createKeyDirectory({
      api: {
        publicKeys: async () => answer,
        systemKeys: async () => answer,
        conversation: async () => ({}) as never,
      },
      clock,
    });
    expect((await directory.keys('a1')).retired).toHaveLength(1);
    clock.advance(6 * DAY);
    expect((await directory.keys('a1')).retired).toHaveLength(1);
    clock.advance(2 * DAY);
    expect((await directory.keys('a1')).retired).toHaveLength(0);
  });
});
