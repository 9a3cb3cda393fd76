import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isConfigurationError, utf8 } from '../../../../packages/sdk/src/core/index.js';
import {
  defaultBackend,
  defaultSyncBackend,
  requireSync,
} from '../../../../packages/sdk/src/crypto/backend/node-default.js';
import { portableBackend } from '../../../../packages/sdk/src/crypto/backend/portable.js';
import type { AsyncPrimitives } from '../../../../packages/sdk/src/crypto/backend/types.js';
import { keysFromPrivate } from '../../../../packages/sdk/src/crypto/keys.js';
import { hex, unhex } from '../../../fixtures/envelope/fixed-randomness.js';
import { backends, nobleBackend, node } from '../helpers.js';

// Known answers: RFC 7748 §6.1, RFC 8032 §7.1 test 1, RFC 4231 case 2, GCM spec test case 14, FIPS 180-2.
const ALICE = keysFromPrivate(
  unhex('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a'),
  unhex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60'),
);
const BOB_PUB = unhex('de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f');
const SHARED = '4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742';
const SIG_EMPTY =
  'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b';

const each = backends.map((b) => [b.name, b] as const);

describe.each(each)('%s backend, async primitives', (_name, backend) => {
  const a: AsyncPrimitives = backend.async;

  it('matches the known answers', async () => {
    expect(hex((await a.x25519(ALICE.encryption, BOB_PUB))!)).toBe(SHARED);
    expect(hex(await a.ed25519Sign(ALICE.signing, new Uint8Array(0)))).toBe(SIG_EMPTY);
    expect(await a.ed25519Verify(ALICE.signing.publicKey, new Uint8Array(0), unhex(SIG_EMPTY))).toBe(true);
    expect(hex(await a.sha256(utf8('abc')))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(hex(await a.hmacSha256(utf8('Jefe'), utf8('what do ya want for nothing?')))).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    const sealed = await a.aesGcmEncrypt(
      new Uint8Array(32),
      new Uint8Array(12),
      new Uint8Array(16),
      new Uint8Array(0),
    );
    expect(hex(sealed)).toBe('cea7403d4d606b6e074ec5d3baf39d18' + 'd0d1c8a799996bf0265b98b5d48ab919');
    expect(hex(backend.sha256(utf8('abc')))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('reports bad inputs as undefined / false instead of throwing', async () => {
    expect(await a.x25519(ALICE.encryption, new Uint8Array(32))).toBeUndefined(); // low-order point
    expect(await a.x25519(ALICE.encryption, new Uint8Array(31))).toBeUndefined();
    const sig = unhex(SIG_EMPTY);
    expect(await a.ed25519Verify(ALICE.signing.publicKey, utf8('x'), sig)).toBe(false);
    expect(await a.ed25519Verify(ALICE.signing.publicKey, new Uint8Array(0), sig.subarray(0, 63))).toBe(
      false,
    );
    expect(await a.ed25519Verify(new Uint8Array(31), new Uint8Array(0), sig)).toBe(false);
    const key = new Uint8Array(32).fill(1);
    const nonce = new Uint8Array(12);
    const sealed = await a.aesGcmEncrypt(key, nonce, utf8('secret'), utf8('aad'));
    expect(await a.aesGcmDecrypt(key, nonce, sealed, utf8('aad'))).toEqual(utf8('secret'));
    expect(await a.aesGcmDecrypt(key, nonce, sealed, utf8('aaD'))).toBeUndefined();
    expect(await a.aesGcmDecrypt(key, nonce, sealed.subarray(0, 15), utf8('aad'))).toBeUndefined();
  });
});

describe('backends agree', () => {
  it('gives identical bytes for every primitive on random inputs', async () => {
    const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });
    await fc.assert(
      fc.asyncProperty(
        bytes(32),
        bytes(32),
        bytes(12),
        fc.uint8Array({ maxLength: 300 }),
        async (k1, k2, iv, msg) => {
          const keys = keysFromPrivate(k1, k2);
          const p = keysFromPrivate(k1, k2, { backend: portableBackend });
          expect(p).toEqual(keys);
          const peer = keysFromPrivate(k2, k1).encryption.publicKey;
          const [n, q, r] = [node.async, portableBackend.async, nobleBackend.async];
          expect(await r.x25519(keys.encryption, peer)).toEqual(node.sync.x25519(keys.encryption, peer));
          expect(await r.ed25519Sign(keys.signing, msg)).toEqual(node.sync.ed25519Sign(keys.signing, msg));
          expect(await q.x25519(keys.encryption, peer)).toEqual(node.sync.x25519(keys.encryption, peer));
          const sig = node.sync.ed25519Sign(keys.signing, msg);
          expect(await q.ed25519Sign(keys.signing, msg)).toEqual(sig);
          expect(await n.ed25519Sign(keys.signing, msg)).toEqual(sig);
          expect(await q.ed25519Verify(keys.signing.publicKey, msg, sig)).toBe(true);
          expect(await n.ed25519Verify(keys.signing.publicKey, msg, sig)).toBe(true);
          expect(await q.hmacSha256(k1, msg)).toEqual(node.sync.hmacSha256(k1, msg));
          expect(await q.sha256(msg)).toEqual(node.sync.sha256(msg));
          const sealed = node.sync.aesGcmEncrypt(k1, iv, msg, k2);
          expect(await q.aesGcmEncrypt(k1, iv, msg, k2)).toEqual(sealed);
          expect(await q.aesGcmDecrypt(k1, iv, sealed, k2)).toEqual(msg);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('default backend selection', () => {
  it('uses node:crypto on Node, and refuses a sync use of an async-only backend', () => {
    expect(defaultBackend().name).toBe('node');
    expect(defaultSyncBackend().sync).toBeDefined();
    expect(requireSync(node)).toBe(node);
    let caught: unknown;
    try {
      requireSync(portableBackend);
    } catch (err) {
      caught = err;
    }
    expect(isConfigurationError(caught)).toBe(true);
  });
});

describe('portable backend curve source', () => {
  it('verifies the same signature through WebCrypto curves and through forced @noble curves', async () => {
    const k = keysFromPrivate(ALICE.encryption.privateKey, ALICE.signing.privateKey);
    const msg = utf8('probe');
    const sig = node.sync.ed25519Sign(k.signing, msg);
    // Both paths must agree; the forced-noble backend reports its name.
    expect(await portableBackend.async.ed25519Verify(k.signing.publicKey, msg, sig)).toBe(true);
    expect(await nobleBackend.async.ed25519Verify(k.signing.publicKey, msg, sig)).toBe(true);
    expect([portableBackend.name, nobleBackend.name]).toEqual(['portable', 'portable-noble']);
    const imported = await globalThis.crypto.subtle
      .importKey('raw', new Uint8Array(k.signing.publicKey), { name: 'Ed25519' }, false, ['verify'])
      .then(() => true);
    expect(imported).toBe(true);
  });
});
