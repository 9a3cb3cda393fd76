import { describe, expect, it } from 'vitest';
import { nodeBackend } from '../../../../packages/sdk/src/crypto/backend/node.js';
import { passesKnownAnswers } from '../../../../packages/sdk/src/crypto/backend/node-probe.js';
import type { SyncCryptoBackend } from '../../../../packages/sdk/src/crypto/backend/types.js';

// workerd's node:crypto (nodejs_compat) fails these; .ci/runtimes.sh checks that a
// Worker then falls back to the portable backend.
describe('node:crypto known-answer probe', () => {
  const node = nodeBackend()!;

  it('passes on Node', () => {
    expect(node).toBeDefined();
    expect(passesKnownAnswers(node)).toBe(true);
  });

  it('fails a backend that throws on raw keys (as workerd nodejs_compat does)', () => {
    const throwing: SyncCryptoBackend = {
      ...node,
      x25519PublicKey: () => {
        throw new Error('Unsupported key format');
      },
    };
    expect(passesKnownAnswers(throwing)).toBe(false);
  });

  it('fails a backend with a wrong answer in any primitive', () => {
    const flip = (b: Uint8Array): Uint8Array => b.map((x, i) => (i === 0 ? x ^ 1 : x));
    const variants: SyncCryptoBackend[] = [
      { ...node, ed25519PublicKey: (p) => flip(node.ed25519PublicKey(p)) },
      { ...node, sync: { ...node.sync, x25519: (kp, pub) => flip(node.sync.x25519(kp, pub)!) } },
      { ...node, sync: { ...node.sync, x25519: () => undefined } },
      { ...node, sync: { ...node.sync, ed25519Verify: () => false } },
    ];
    for (const v of variants) expect(passesKnownAnswers(v)).toBe(false);
  });
});
