import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ed25519KeyProblem,
  ed25519SignatureProblem,
  ed25519VerifyStrict,
} from '../../../packages/sdk/src/crypto/ed25519-rules.js';
import { parseEnvelope, SIZES } from '../../../packages/sdk/src/crypto/envelope-format.js';
import { signedMessage } from '../../../packages/sdk/src/crypto/key-schedule.js';
import { keysFromPrivate } from '../../../packages/sdk/src/crypto/keys.js';
import { open, openAsync } from '../../../packages/sdk/src/crypto/open.js';
import { sealBytes } from '../../../packages/sdk/src/crypto/seal.js';
import { CONSTRUCTED_CASES, EDGE_CASES, SPECCHECK_CASES } from '../../fixtures/ed25519/edge-cases.js';
import { unhex } from '../../fixtures/envelope/fixed-randomness.js';
import { backends, catchCrypto, catchCryptoAsync, node, parties, sealOptionsFor } from './helpers.js';

/** Every verdict for one case: node sync, then each backend's async verify, then the JS rule. */
async function verdicts(pub: Uint8Array, msg: Uint8Array, sig: Uint8Array): Promise<boolean[]> {
  const out = [node.sync.ed25519Verify(pub, msg, sig)];
  for (const b of backends) out.push(await b.async.ed25519Verify(pub, msg, sig));
  out.push(ed25519VerifyStrict(pub, msg, sig));
  return out;
}

describe('one Ed25519 rule on every backend', () => {
  it.each(EDGE_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const v = await verdicts(unhex(c.pub_key), unhex(c.message), unhex(c.signature));
    expect(v).toEqual(Array.from({ length: backends.length + 2 }, () => c.valid));
  });

  it('the WebCrypto probe vector (portable.ts) is accepted by a cofactored verifier only', () => {
    const c = CONSTRUCTED_CASES.find((x) => x.name.startsWith('key owner: mixed-order R'))!;
    expect([c.message, c.pub_key, c.signature.slice(0, 16)]).toEqual([
      '616e79206d65737361676520617420616c6c',
      'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
      'c2ecc2af9bfefd06',
    ]);
    const args = [unhex(c.signature), unhex(c.message), unhex(c.pub_key)] as const;
    expect(ed25519.verify(...args, { zip215: false })).toBe(true); // @noble: cofactored
    expect(ed25519VerifyStrict(unhex(c.pub_key), unhex(c.message), unhex(c.signature))).toBe(false);
  });

  it('refuses all 12 speccheck cases and accepts only the honest controls', () => {
    expect(SPECCHECK_CASES).toHaveLength(12);
    expect(EDGE_CASES.filter((c) => c.valid).map((c) => c.name)).toEqual([
      'control: RFC 8032 key, nonce r',
      'control: RFC 8032 key, deterministic signature',
    ]);
  });

  it('names the first broken rule', () => {
    const reason = (i: number) => {
      const c = EDGE_CASES[i]!;
      return ed25519SignatureProblem(unhex(c.pub_key), unhex(c.signature));
    };
    expect(Array.from({ length: EDGE_CASES.length }, (_, i) => reason(i))).toEqual([
      'r_small_order', // 0
      'key_small_order', // 1
      'r_small_order', // 2
      'key_mixed_order', // 3
      'key_mixed_order', // 4
      'key_mixed_order', // 5
      's_not_reduced', // 6
      's_not_reduced', // 7
      'r_non_canonical', // 8
      'r_non_canonical', // 9
      'key_non_canonical', // 10
      'key_non_canonical', // 11
      'r_small_order', // identity A canonical
      'r_small_order',
      'r_small_order',
      'r_small_order',
      'r_small_order', // key owner, R = identity
      undefined, // mixed-order R: the cofactorless equation refuses it
      's_not_reduced',
      'key_mixed_order',
      undefined,
      undefined,
    ]);
    expect(ed25519SignatureProblem(new Uint8Array(31), new Uint8Array(64))).toBe('length');
    expect(ed25519SignatureProblem(new Uint8Array(32), new Uint8Array(63))).toBe('length');
  });

  it('classifies public keys', () => {
    const key = (h: string) => ed25519KeyProblem(unhex(h));
    expect(key('01' + '00'.repeat(31))).toBe('small_order'); // identity
    expect(key('00'.repeat(32))).toBe('small_order'); // order 4
    expect(key('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa')).toBe('small_order');
    expect(key('ee' + 'ff'.repeat(30) + '7f')).toBe('non_canonical'); // identity, y = p + 1
    expect(key('ed' + 'ff'.repeat(30) + '7f')).toBe('non_canonical'); // y = p
    expect(key('01' + '00'.repeat(30) + '80')).toBe('non_canonical'); // x = 0, sign bit set
    expect(key('ec' + 'ff'.repeat(31))).toBe('non_canonical'); // y = −1, sign bit set
    expect(key('f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43')).toBe('mixed_order');
    expect(key('cdb267ce40c5cd45306fa5d2f29731459387dbf9eb933b7bd5aed9a765b88d4d')).toBe('mixed_order');
    expect(key('02' + '00'.repeat(31))).toBe('non_canonical'); // y = 2 is not on the curve
    expect(key('442aad9f089ad9e14647b1ef9099a1ff4798d78589e66f28eca69c11f582a623')).toBeUndefined();
    expect(ed25519KeyProblem(new Uint8Array(33))).toBe('length');
  });

  it('accepts every honest signature on every backend and refuses a changed message', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 200 }),
        async (seed, msg) => {
          const { signing } = keysFromPrivate(new Uint8Array(32), seed);
          expect(ed25519KeyProblem(signing.publicKey)).toBeUndefined();
          const sig = node.sync.ed25519Sign(signing, msg);
          expect(await verdicts(signing.publicKey, msg, sig)).toEqual([true, true, true, true, true]);
          const other = Uint8Array.of(...msg, 0);
          expect(await verdicts(signing.publicKey, other, sig)).toEqual([false, false, false, false, false]);
        },
      ),
      { numRuns: 15, seed: 0x5eed },
    );
  });
});

/** `bytes` with its signature replaced by `sign(signed message)`. */
function resignWith(bytes: Uint8Array, sign: (message: Uint8Array) => Uint8Array): Uint8Array {
  parseEnvelope(bytes); // well-formed
  const out = Uint8Array.from(bytes);
  const bodyEnd = out.length - SIZES.signature;
  out.set(sign(signedMessage(node.sync.sha256(out.subarray(0, bodyEnd)))), bodyEnd);
  return out;
}

describe('crafted envelope signatures', () => {
  const p = parties(1);
  const me = p.recipients[0]!;
  const sealed = sealBytes({ type: 'text', text: 'hi' }, sealOptionsFor(p));

  async function results(wire: Uint8Array, senderKey: Uint8Array): Promise<string[]> {
    const opts = { recipientId: 'recipient-0', keys: me, senderKey };
    const out: string[] = [];
    try {
      open(wire, opts);
      out.push('opened');
    } catch {
      out.push(catchCrypto(() => open(wire, opts)).reason ?? 'error');
    }
    for (const backend of backends) {
      try {
        await openAsync(wire, { ...opts, backend });
        out.push('opened');
      } catch {
        out.push((await catchCryptoAsync(openAsync(wire, { ...opts, backend }))).reason ?? 'error');
      }
    }
    return out;
  }

  it('an identity-key sender (R = identity, S = 0) opens nowhere (it opened on node:crypto before)', async () => {
    const identity = unhex('01' + '00'.repeat(31));
    const forged = resignWith(sealed, () => unhex('01' + '00'.repeat(63)));
    expect(await results(forged, identity)).toEqual(['signature', 'signature', 'signature', 'signature']);
  });

  it('a mixed-order R by the real key owner opens nowhere (it opened on @noble before)', async () => {
    const c = CONSTRUCTED_CASES.find((x) => x.name.startsWith('key owner: mixed-order R'))!;
    // Same construction over the envelope's signed message, with the fixture's key.
    const seed = unhex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
    const { scalar } = ed25519.utils.getExtendedPublicKey(seed);
    const T8 = ed25519.Point.fromHex('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a');
    const L = ed25519.Point.Fn.ORDER;
    const r = 77n;
    const R = ed25519.Point.BASE.multiply(r).add(T8).toBytes();
    const forged = resignWith(sealed, (m) => {
      const k = leScalar(sha512(Uint8Array.of(...R, ...unhex(c.pub_key), ...m))) % L;
      return Uint8Array.of(...R, ...leBytes((r + k * scalar) % L));
    });
    expect(await results(forged, unhex(c.pub_key))).toEqual([
      'signature',
      'signature',
      'signature',
      'signature',
    ]);
    // The honest envelope from the same kind of key still opens everywhere.
    expect(await results(sealed, p.sender.signing.publicKey)).toEqual([
      'opened',
      'opened',
      'opened',
      'opened',
    ]);
  });
});

function leScalar(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]!);
  return n;
}
function leBytes(n: bigint): Uint8Array {
  return Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn));
}
