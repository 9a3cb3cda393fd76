import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { toBase64 } from '../../../../packages/sdk/src/core/encoding.js';
import { isValidationError } from '../../../../packages/sdk/src/core/errors/index.js';
import { LIMITS } from '../../../../packages/sdk/src/core/limits.js';
import { KeyRing } from '../../../../packages/sdk/src/crypto/key-store/index.js';
import { generateKeys } from '../../../../packages/sdk/src/crypto/keys.js';

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.parse('2026-01-01T00:00:00Z');

describe('KeyRing', () => {
  it('starts with only the current pair as candidate', () => {
    const keys = generateKeys();
    const ring = KeyRing.create(keys, T0);
    expect(ring.current.keys).toBe(keys);
    expect(ring.retired).toEqual([]);
    expect(ring.candidates(T0)).toEqual([keys.encryption]);
  });

  it('keeps the old X25519 pair for the 7-day grace after rotation, then drops it', () => {
    const clock = new ManualClock(T0);
    const first = generateKeys();
    const second = generateKeys();
    let ring = KeyRing.create(first, clock.now());
    clock.advance(DAY);
    ring = ring.rotate(second, clock.now());
    const rotatedAt = clock.now();
    expect(ring.current.keys).toBe(second);
    expect(ring.retired).toHaveLength(1);
    expect(ring.retired[0]).toMatchObject({
      createdAt: T0,
      retiredAt: rotatedAt,
      notAfter: rotatedAt + LIMITS.TOKEN_GRACE_MS,
    });
    expect(ring.retired[0]!.encryption).toBe(first.encryption);
    expect(ring.candidates(clock.now())).toEqual([second.encryption, first.encryption]);
    clock.advance(LIMITS.TOKEN_GRACE_MS - 1);
    expect(ring.candidates(clock.now())).toEqual([second.encryption, first.encryption]);
    expect(ring.prune(clock.now())).toBe(ring);
    clock.advance(1); // notAfter is exclusive
    expect(ring.candidates(clock.now())).toEqual([second.encryption]);
    const pruned = ring.prune(clock.now());
    expect(pruned).not.toBe(ring);
    expect(pruned.retired).toEqual([]);
    expect(pruned.current).toEqual(ring.current);
  });

  it('drops the old pair at once with grace 0 (emergency regeneration)', () => {
    const ring = KeyRing.create(generateKeys(), T0).rotate(generateKeys(), T0 + 5, 0);
    expect(ring.retired).toEqual([]);
    expect(ring.candidates(T0 + 5)).toHaveLength(1);
  });

  it('orders several retired generations newest first and prunes expired ones on rotate', () => {
    const k = [generateKeys(), generateKeys(), generateKeys(), generateKeys()] as const;
    let ring = KeyRing.create(k[0], T0);
    ring = ring.rotate(k[1], T0 + DAY, 3 * DAY); // k0 until T0 + 4d
    ring = ring.rotate(k[2], T0 + 2 * DAY, 3 * DAY); // k1 until T0 + 5d
    expect(ring.candidates(T0 + 2 * DAY)).toEqual([k[2].encryption, k[1].encryption, k[0].encryption]);
    ring = ring.rotate(k[3], T0 + 4 * DAY, 3 * DAY); // k0 expired now, k2 until T0 + 7d
    expect(ring.retired.map((g) => g.encryption)).toEqual([k[2].encryption, k[1].encryption]);
  });

  it('refuses nonsense: same keys, negative or fractional times', () => {
    const keys = generateKeys();
    const ring = KeyRing.create(keys, T0);
    for (const f of [
      () => ring.rotate(keys, T0),
      () => ring.rotate(generateKeys(), T0, -1),
      () => ring.rotate(generateKeys(), T0, 0.5),
      () => ring.rotate(generateKeys(), Number.NaN),
      () => KeyRing.create(keys, -1),
      () => ring.rotate(generateKeys(), Number.MAX_SAFE_INTEGER, DAY),
    ]) {
      let caught: unknown;
      try {
        f();
      } catch (err) {
        caught = err;
      }
      expect(isValidationError(caught)).toBe(true);
    }
    const dup = { encryption: keys.encryption, createdAt: 0, retiredAt: 1, notAfter: 2 };
    expect(() => KeyRing.fromGenerations({ keys, createdAt: 0 }, [dup])).toThrow(/repeats a key/);
  });

  it('never shows a private key when logged', () => {
    const keys = generateKeys();
    const ring = KeyRing.create(generateKeys(), T0).rotate(keys, T0 + 1);
    const secrets = [
      keys.encryption.privateKey,
      keys.signing.privateKey,
      ring.retired[0]!.encryption.privateKey,
    ];
    const shown = [JSON.stringify(ring), inspect(ring, { depth: 10 }), String(ring)];
    for (const text of shown) for (const s of secrets) expect(text).not.toContain(toBase64(s));
    expect(JSON.stringify(ring)).toMatch(/"fingerprint":"[0-9a-f]{16}"/);
  });
});
