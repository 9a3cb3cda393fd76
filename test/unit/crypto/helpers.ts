/** Shared fixtures of the crypto unit tests. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { isCryptoError, type CryptoError } from '../../../packages/sdk/src/core/errors/index.js';
import { nodeBackend } from '../../../packages/sdk/src/crypto/backend/node.js';
import { createPortableBackend, portableBackend } from '../../../packages/sdk/src/crypto/backend/portable.js';
import type { CryptoBackend } from '../../../packages/sdk/src/crypto/backend/types.js';
import { generateKeys, type AgentKeys } from '../../../packages/sdk/src/crypto/keys.js';
import type { SealOptions } from '../../../packages/sdk/src/crypto/seal-options.js';
import { VectorFileSchema, type VectorFile } from '../../fixtures/envelope/vector-types.js';

export const node = nodeBackend()!;
export const nobleBackend = createPortableBackend({ curves: 'noble' });
/** Every backend: node:crypto, portable (WebCrypto curves), portable with @noble curves. */
export const backends: readonly CryptoBackend[] = [node, portableBackend, nobleBackend];

/** The stored test vectors. */
export function loadVectors(): VectorFile {
  const url = new URL('../../fixtures/envelope/vectors.json', import.meta.url);
  return VectorFileSchema.parse(JSON.parse(readFileSync(fileURLToPath(url), 'utf8')));
}

/** A sender and `n` recipients with fresh keys. */
export function parties(n: number): { sender: AgentKeys; recipients: AgentKeys[] } {
  return { sender: generateKeys(), recipients: Array.from({ length: n }, () => generateKeys()) };
}

/** Seal options from `parties`. */
export function sealOptionsFor(p: { sender: AgentKeys; recipients: AgentKeys[] }): SealOptions {
  return {
    sender: { id: 'agent-sender', signing: p.sender.signing },
    recipients: p.recipients.map((r, i) => ({ id: `recipient-${i}`, publicKey: r.encryption.publicKey })),
    conversationId: 'conv-1',
  };
}

/** Runs `fn` and returns the CryptoError it throws (fails the test otherwise). */
export function catchCrypto(fn: () => unknown): CryptoError {
  try {
    fn();
  } catch (err) {
    if (isCryptoError(err)) return err;
    throw err;
  }
  throw new Error('expected a CryptoError, nothing was thrown');
}

/** Awaits `p` and returns the CryptoError it rejects with. */
export async function catchCryptoAsync(p: Promise<unknown>): Promise<CryptoError> {
  const err: unknown = await p.then(
    () => new Error('expected a CryptoError, the promise resolved'),
    (e: unknown) => e,
  );
  if (isCryptoError(err)) return err;
  throw err;
}

/** Asserts that `err` is one of the typed envelope errors. */
export function expectEnvelopeError(err: unknown): void {
  expect(isCryptoError(err)).toBe(true);
  const e = err as CryptoError;
  expect(['INVALID_ENVELOPE', 'DECRYPT_FAILURE']).toContain(e.code);
  if (e.code === 'DECRYPT_FAILURE')
    expect(['signature', 'no_wrap', 'unwrap', 'aead', 'parse']).toContain(e.reason);
}
