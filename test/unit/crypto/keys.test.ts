import { describe, expect, it } from 'vitest';
import { isValidationError } from '../../../packages/sdk/src/core/errors/index.js';
import { generateKeys, keyFingerprint, keysFromPrivate } from '../../../packages/sdk/src/crypto/keys.js';
import { hex, unhex } from '../../fixtures/envelope/fixed-randomness.js';
import { backends, node } from './helpers.js';

// RFC 7748 §6.1 (Alice) and RFC 8032 §7.1 test 1.
const X_PRIV = '77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a';
const X_PUB = '8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a';
const ED_PRIV = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
const ED_PUB = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';

describe('keys', () => {
  it.each(backends.map((b) => [b.name, b] as const))('derives the RFC public keys (%s)', (_name, backend) => {
    const keys = keysFromPrivate(unhex(X_PRIV), unhex(ED_PRIV), { backend });
    expect(hex(keys.encryption.publicKey)).toBe(X_PUB);
    expect(hex(keys.signing.publicKey)).toBe(ED_PUB);
  });

  it('generates distinct 32-byte key pairs whose publics match their privates', () => {
    const a = generateKeys();
    const b = generateKeys();
    for (const kp of [a.encryption, a.signing, b.encryption, b.signing]) {
      expect(kp.publicKey).toHaveLength(32);
      expect(kp.privateKey).toHaveLength(32);
    }
    expect(hex(a.encryption.privateKey)).not.toBe(hex(b.encryption.privateKey));
    const again = keysFromPrivate(a.encryption.privateKey, a.signing.privateKey);
    expect(hex(again.encryption.publicKey)).toBe(hex(a.encryption.publicKey));
    expect(hex(again.signing.publicKey)).toBe(hex(a.signing.publicKey));
  });

  it('fingerprints a key as the first 8 bytes of its SHA-256, in hex', () => {
    const pub = unhex(X_PUB);
    const fp = keyFingerprint(pub);
    expect(fp).toMatch(/^[0-9a-f]{16}$/);
    expect(fp).toBe(hex(node.sha256(pub).subarray(0, 8)));
    expect(keyFingerprint(Uint8Array.from(pub))).toBe(fp);
    expect(keyFingerprint(generateKeys().encryption.publicKey)).not.toBe(fp);
  });

  it('rejects keys that are not 32 bytes with a ValidationError naming no key bytes', () => {
    const short = new Uint8Array(31).fill(0xab);
    for (const fn of [
      () => keyFingerprint(short),
      () => keysFromPrivate(short, new Uint8Array(32)),
      () => keysFromPrivate(new Uint8Array(32), new Uint8Array(33)),
    ]) {
      let caught: unknown;
      try {
        fn();
      } catch (err) {
        caught = err;
      }
      expect(isValidationError(caught)).toBe(true);
      expect(String((caught as Error).message)).not.toContain('abab');
    }
  });
});
