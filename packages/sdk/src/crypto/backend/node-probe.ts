/**
 * A runtime can offer a node:crypto that lacks what the envelope needs:
 * Cloudflare Workers with `nodejs_compat` have `process.getBuiltinModule('node:crypto')`,
 * but its X25519 / Ed25519 key objects do not take raw keys as JWK. Before the
 * node:crypto backend is used, it must pass these known-answer tests once.
 *
 * @module
 */
import type { SyncCryptoBackend } from './types.js';

const hex = (h: string): Uint8Array => Uint8Array.from(h.match(/../g) ?? [], (b) => parseInt(b, 16));
const same = (a: Uint8Array | undefined, b: Uint8Array): boolean =>
  a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);

/** RFC 7748 §6.1 (Alice and Bob) and RFC 8032 §7.1 test 1. */
const X_ALICE_PRIV = hex('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a');
const X_ALICE_PUB = hex('8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a');
const X_BOB_PUB = hex('de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f');
const X_SHARED = hex('4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742');
const ED_PRIV = hex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const ED_PUB = hex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');

/** Whether `backend` derives, agrees and signs as RFC 7748 / RFC 8032 say. Never throws. */
export function passesKnownAnswers(backend: SyncCryptoBackend): boolean {
  try {
    if (!same(backend.x25519PublicKey(X_ALICE_PRIV), X_ALICE_PUB)) return false;
    if (!same(backend.ed25519PublicKey(ED_PRIV), ED_PUB)) return false;
    const alice = { publicKey: X_ALICE_PUB, privateKey: X_ALICE_PRIV };
    if (!same(backend.sync.x25519(alice, X_BOB_PUB), X_SHARED)) return false;
    const message = new Uint8Array([0x61, 0x6d, 0x73]);
    const signature = backend.sync.ed25519Sign({ publicKey: ED_PUB, privateKey: ED_PRIV }, message);
    return backend.sync.ed25519Verify(ED_PUB, message, signature);
  } catch {
    return false;
  }
}
