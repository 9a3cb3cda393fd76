import { describe, expect, it } from 'vitest';
import type { CryptoBackend, SyncCryptoBackend } from '../../../packages/sdk/src/crypto/backend/types.js';
import { parseEnvelope, SIZES } from '../../../packages/sdk/src/crypto/envelope-format.js';
import {
  deriveKek,
  WRAP_NONCE,
  wrapExpandInput,
  wrapSalt,
} from '../../../packages/sdk/src/crypto/key-schedule.js';
import { generateKeys } from '../../../packages/sdk/src/crypto/keys.js';
import { open, openAsync } from '../../../packages/sdk/src/crypto/open.js';
import { sealBytes } from '../../../packages/sdk/src/crypto/seal.js';
import type { EnvelopeVersionName } from '../../../packages/sdk/src/crypto/seal-options.js';
import { withFixedRandomness } from '../../fixtures/envelope/fixed-randomness.js';
import { resign } from '../../fixtures/envelope/tamper.js';
import { backends, catchCrypto, catchCryptoAsync, node } from './helpers.js';

const s = node.sync;
const sender = generateKeys();
const alice = generateKeys();
const bob = generateKeys();
const eph = s.sha256(Uint8Array.of(1));
const ck1 = s.sha256(Uint8Array.of(2));
const ck2 = s.sha256(Uint8Array.of(3));
const nonce = s.sha256(Uint8Array.of(4)).slice(0, 12);
const payload = { type: 'text', text: 'approve it' }; // content ≠ 48 bytes, the size of a wrap

/**
 * One envelope, signed once by a sender the recipients trust, whose wrap for
 * alice carries content key ck1 and whose wrap for bob carries ck2.
 */
function twoKeyEnvelope(version: EnvelopeVersionName): Uint8Array {
  const honest = sealBytes(payload, {
    sender: { id: 'agent-evil', signing: sender.signing },
    recipients: [
      { id: 'alice', publicKey: alice.encryption.publicKey },
      { id: 'bob', publicKey: bob.encryption.publicKey },
    ],
    conversationId: 'group-1',
    messageId: 'm-1',
    createdAt: '2026-01-01T00:00:00.000Z',
    version,
    backend: withFixedRandomness(node, [eph, ck1, nonce]),
  });
  const env = parseEnvelope(honest);
  const h = s.sha256(env.headerBytes);
  const ephemeral = { privateKey: eph, publicKey: env.header.ephemeralPublicKey };
  const kekBob = deriveKek(
    s,
    s.x25519(ephemeral, bob.encryption.publicKey)!,
    wrapSalt(ephemeral.publicKey, bob.encryption.publicKey),
    wrapExpandInput(h, 1),
  );
  const out = Uint8Array.from(honest);
  out.set(s.aesGcmEncrypt(kekBob, WRAP_NONCE, ck2, h), env.headerBytes.length + SIZES.wrap);
  return resign(out, sender.signing);
}

/** `backend` counting AES-GCM decryptions by ciphertext length (48 = a wrap; others = content). */
function counting<B extends CryptoBackend>(backend: B): { backend: B; content: () => number } {
  let content = 0;
  const count = (sealed: Uint8Array) => {
    if (sealed.length !== SIZES.wrap) content += 1;
  };
  const sync =
    backend.sync === undefined
      ? undefined
      : {
          ...backend.sync,
          aesGcmDecrypt: (k: Uint8Array, n: Uint8Array, c: Uint8Array, a: Uint8Array) => {
            count(c);
            return backend.sync!.aesGcmDecrypt(k, n, c, a);
          },
        };
  const async = {
    ...backend.async,
    aesGcmDecrypt: (k: Uint8Array, n: Uint8Array, c: Uint8Array, a: Uint8Array) => {
      count(c);
      return backend.async.aesGcmDecrypt(k, n, c, a);
    },
  };
  return { backend: { ...backend, sync, async }, content: () => content };
}

describe('key commitment (v1.1): one signed envelope, two content keys', () => {
  const as = (id: 'alice' | 'bob') => ({
    recipientId: id,
    keys: id === 'alice' ? alice : bob,
    senderKey: sender.signing.publicKey,
  });

  it('alice, whose wrap carries the committed key, opens it', () => {
    expect(open(twoKeyEnvelope('1.1'), as('alice')).payload).toEqual(payload);
  });

  it('bob, whose wrap carries another key, is refused with reason aead before any content decryption', async () => {
    const wire = twoKeyEnvelope('1.1');
    const spy = counting(node as SyncCryptoBackend);
    const err = catchCrypto(() => open(wire, { ...as('bob'), backend: spy.backend }));
    expect({ code: err.code, reason: err.reason, message: err.message }).toEqual({
      code: 'DECRYPT_FAILURE',
      reason: 'aead',
      message:
        'Envelope could not be opened (aead check failed: the key commitment does not match the content key)',
    });
    expect(spy.content()).toBe(0);
    for (const b of backends) {
      const asyncSpy = counting(b);
      const a = await catchCryptoAsync(openAsync(wire, { ...as('bob'), backend: asyncSpy.backend }));
      expect({ code: a.code, reason: a.reason }).toEqual({ code: 'DECRYPT_FAILURE', reason: 'aead' });
      expect(asyncSpy.content()).toBe(0);
    }
  });

  it('in legacy v1.0 nothing stops bob from decrypting under his key (only the GCM tag refuses it)', () => {
    const wire = twoKeyEnvelope('1.0');
    const legacy = { acceptLegacyV10: true }; // v1.0 opens only on this explicit opt-in (#24, item 10)
    expect(open(wire, { ...as('alice'), ...legacy }).payload).toEqual(payload);
    const spy = counting(node as SyncCryptoBackend);
    const err = catchCrypto(() => open(wire, { ...as('bob'), ...legacy, backend: spy.backend }));
    expect({ code: err.code, reason: err.reason }).toEqual({ code: 'DECRYPT_FAILURE', reason: 'aead' });
    expect(spy.content()).toBe(1);
  });
});
