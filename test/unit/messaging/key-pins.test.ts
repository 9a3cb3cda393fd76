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
