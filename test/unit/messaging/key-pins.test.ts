/**
 * Trust on first use: first keys pinned, a change reported (warn) or refused
 * until confirmed (block), unknown retired generations dropped, pins through
 * the key directory.
 */
import { describe, expect, it } from 'vitest';
import { createKeyDirectory, type PeerKeys } from '../../../packages/sdk/src/messaging/key-directory.js';
import { KeyPins, type KeyChangedEvent } from '../../../packages/sdk/src/messaging/key-pins.js';
import type { PrincipalKeys } from '../../../packages/sdk/src/client/index.js';
import { toBase64 } from '../../../packages/sdk/src/core/encoding.js';
import { isCryptoError } from '../../../packages/sdk/src/core/errors/index.js';
import { fingerprint, generateKeys } from '../../../packages/sdk/src/crypto/index.js';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { keyStatementToWire, signKeyStatement } from '../../../packages/sdk/src/crypto/key-statement.js';
import { keyFingerprint, type AgentKeys } from '../../../packages/sdk/src/crypto/keys.js';
import type { KeyRefusedEvent } from '../../../packages/sdk/src/messaging/key-pins.js';
import { MemoryKeyPinStore, parsePinRecord } from '../../../packages/sdk/src/messaging/key-pins.js';

const gen = () => {
  const k = generateKeys();
  return { signing: k.signing.publicKey, encryption: k.encryption.publicKey };
};
type Gen = ReturnType<typeof gen>;
const peer = (current: Gen, retired: Gen[] = []): PeerKeys => ({
  id: 'a1',
  kind: 'agent',
  ...current,
  retired: retired.map((r) => ({ ...r, validUntilMs: undefined, retiredAtMs: undefined })),
});

describe('KeyPins', () => {
  it('pins the first keys and accepts them again silently', async () => {
    const events: KeyChangedEvent[] = [];
    const pins = new KeyPins({ onKeyChanged: (e) => events.push(e) });
    const k = gen();
    await pins.check(peer(k));
    await pins.check(peer(k));
    expect(events).toEqual([]);
    expect((await pins.pinned('a1'))?.current.encryption).toBe(toBase64(k.encryption));
  });

  it("under 'warn' reports a change once, with fingerprints, re-pins, and kills the old generation", async () => {
    const events: KeyChangedEvent[] = [];
    const pins = new KeyPins({ onKeyChanged: (e) => events.push(e) });
    const [k1, k2] = [gen(), gen()];
    await pins.check(peer(k1));
    // A "normal rotation" (old key listed as retired) is still a change.
    const out = await pins.check(peer(k2, [k1]));
    await pins.check(peer(k2, [k1]));
    expect(events).toHaveLength(1);
    expect(events[0]!.fingerprints.previous).toBe(fingerprint({ id: 'a1', ...k1 }));
    expect(events[0]!.fingerprints.current).toBe(fingerprint({ id: 'a1', ...k2 }));
    expect(events[0]!.policy).toBe('warn');
    // No statement vouches for k2: the old generation is dead, not retired (not wrapped to, not a signer).
    expect(out.retired).toEqual([]);
  });

  it("under 'block' refuses with KEY_CHANGED until confirmKey", async () => {
    const events: KeyChangedEvent[] = [];
    const pins = new KeyPins({ policy: 'block', onKeyChanged: (e) => events.push(e) });
    const [k1, k2] = [gen(), gen()];
    await pins.check(peer(k1));
    for (let i = 0; i < 2; i += 1) {
      const err = await pins.check(peer(k2)).catch((e: unknown) => e);
      expect(isCryptoError(err, 'KEY_CHANGED')).toBe(true);
    }
    expect(events).toHaveLength(1);
    expect(await pins.confirmKey('a1')).toBe(true);
    await expect(pins.check(peer(k2))).resolves.toBeDefined();
    expect(await pins.confirmKey('a1')).toBe(false);
  });

  it('drops retired generations the pin never saw', async () => {
    const pins = new KeyPins();
    const [k1, ghost] = [gen(), gen()];
    await pins.check(peer(k1));
    const out = await pins.check(peer(k1, [ghost]));
    expect(out.retired).toEqual([]);
  });

  it('is applied by the key directory', async () => {
    let answer: PrincipalKeys;
    const wire = (g: Gen): PrincipalKeys => ({
      id: 'a1',
      kind: 'agent',
      public_key: toBase64(g.encryption),
      signing_public_key: toBase64(g.signing),
    });
    answer = wire(gen());
    const directory = createKeyDirectory({
      api: {
        publicKeys: async () => answer,
        systemKeys: async () => answer,
        conversation: async () => {
          throw new Error('unused');
        },
      },
      clock: new ManualClock(0),
      pins: new KeyPins({ policy: 'block' }),
    });
    await directory.encryptionKey('a1');
    answer = wire(gen());
    directory.invalidate('a1');
    const err = await directory.signingKey('a1').catch((e: unknown) => e);
    expect(isCryptoError(err, 'KEY_CHANGED')).toBe(true);
  });
});

const DAY = 24 * 3_600_000;
const T0 = Date.parse('2026-03-01T12:00:00.000Z');
/** A statement by `prev` vouching for `next` as generation `generation`, dated `atMs` by the peer. */
const vouch = (prev: AgentKeys, next: AgentKeys, generation: number, atMs: number) =>
  keyStatementToWire(
    signKeyStatement(
      {
        subject: 'a1',
        generation,
        encryption: next.encryption.publicKey,
        signing: next.signing.publicKey,
        previousKeyId: keyFingerprint(prev.encryption.publicKey),
        issuedAtMs: atMs,
      },
      prev.signing,
    ),
  );
const view = (k: AgentKeys) => ({ signing: k.signing.publicKey, encryption: k.encryption.publicKey });
const answer = (
  current: AgentKeys,
  o: { retired?: AgentKeys[]; statements?: ReturnType<typeof vouch>[]; generation?: number } = {},
): PeerKeys => ({
  id: 'a1',
  kind: 'agent',
  ...view(current),
  retired: (o.retired ?? []).map((r) => ({ ...view(r), validUntilMs: undefined, retiredAtMs: undefined })),
  ...(o.generation === undefined ? {} : { generation: o.generation }),
  ...(o.statements === undefined ? {} : { statements: o.statements }),
});

describe('KeyPins: key sets grow only by signed statements', () => {
  it('follows a statement chain silently; the retired time is bounded by first sight, the grace by 7 days', async () => {
    const clock = new ManualClock(T0);
    const changed: KeyChangedEvent[] = [];
    const pins = new KeyPins({ clock, onKeyChanged: (e) => changed.push(e) });
    const [g1, g2, g3] = [generateKeys(), generateKeys(), generateKeys()];
    await pins.check(answer(g1, { generation: 1 }));
    clock.advance(DAY);
    // Two rotations while away; the peer dates the second one far in the future.
    const s2 = vouch(g1, g2, 2, T0 + DAY / 2);
    const s3 = vouch(g2, g3, 3, T0 + 365 * DAY);
    const out = await pins.check(answer(g3, { retired: [g2, g1], statements: [s3, s2], generation: 3 }));
    expect(changed).toEqual([]);
    expect(out.retired.map((r) => r.retiredAtMs)).toEqual([T0 + DAY, T0 + DAY / 2]);
    clock.advance(DAY / 2 + 6 * DAY); // now T0 + 7.5 days: g1's grace is over, g2's is not
    const later = await pins.check(answer(g3, { retired: [g2, g1], statements: [s3, s2], generation: 3 }));
    expect(later.retired.map((r) => r.encryption)).toEqual([g2.encryption.publicKey]);
  });

  it('a statement signed by another key, for another subject, or replayed is a key change', async () => {
    for (const bad of ['signer', 'subject', 'replay'] as const) {
      const changed: KeyChangedEvent[] = [];
      const pins = new KeyPins({ clock: new ManualClock(T0), onKeyChanged: (e) => changed.push(e) });
      const [g1, g2, ghost] = [generateKeys(), generateKeys(), generateKeys()];
      await pins.check(answer(g1, { generation: 5 }));
      const st =
        bad === 'signer'
          ? vouch(ghost, g2, 6, T0)
          : bad === 'subject'
            ? { ...vouch(g1, g2, 6, T0), subject: 'a2' }
            : vouch(g1, g2, 5, T0); // not newer than the pinned generation
      const out = await pins.check(answer(g2, { retired: [g1], statements: [st], generation: 6 }));
      expect(changed).toHaveLength(1);
      expect(out.retired).toEqual([]); // g1 is dead, not retired
    }
  });

  it('reports ghost and dead keys once, and never uses them', async () => {
    const refused: KeyRefusedEvent[] = [];
    const pins = new KeyPins({ clock: new ManualClock(T0), onKeyRefused: (e) => refused.push(e) });
    const [g1, g2, ghost] = [generateKeys(), generateKeys(), generateKeys()];
    await pins.check(answer(g1));
    await pins.check(answer(g2)); // unvouched change (warn): g1 dead
    for (let i = 0; i < 2; i++)
      expect((await pins.check(answer(g2, { retired: [g1, ghost] }))).retired).toEqual([]);
    expect(refused).toEqual([
      { peerId: 'a1', keyId: keyFingerprint(g1.encryption.publicKey), reason: 'dead' },
      { peerId: 'a1', keyId: keyFingerprint(ghost.encryption.publicKey), reason: 'unvouched' },
    ]);
    // A statement from the dead key (the thief holds it) cannot bring anything back.
    const thief = generateKeys();
    const changed: KeyChangedEvent[] = [];
    const pins2 = new KeyPins({ clock: new ManualClock(T0), onKeyChanged: (e) => changed.push(e) });
    await pins2.check(answer(g1));
    await pins2.check(answer(g2));
    await pins2.check(answer(thief, { statements: [vouch(g1, thief, 2, T0)] }));
    expect(changed).toHaveLength(2);
  });

  it('reads version 1 records (former generations dead) and refuses malformed ones', async () => {
    const [g1, g2] = [generateKeys(), generateKeys()];
    const p = (k: AgentKeys) => ({
      signing: toBase64(k.signing.publicKey),
      encryption: toBase64(k.encryption.publicKey),
    });
    expect(parsePinRecord('a1', { current: p(g2), known: [p(g1), p(g2)] })).toEqual({
      current: p(g2),
      generation: null,
      retired: [],
      dead: [p(g1)],
    });
    const store = new MemoryKeyPinStore();
    (store as unknown as { set(id: string, r: unknown): void }).set('a1', { current: 'nope' });
    const err = await new KeyPins({ store }).check(answer(g1)).catch((e: unknown) => e);
    expect(isCryptoError(err, 'KEY_STORE_CORRUPT')).toBe(true);
  });
});
