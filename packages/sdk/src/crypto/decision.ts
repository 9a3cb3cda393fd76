/**
 * Signing and verifying human decisions (`core/protocol/decisions.ts`):
 * Ed25519 over `"ams/decision/v1" ‖ 0x00 ‖ canonical JSON`, with the SDK's
 * one Ed25519 verification rule (every backend refuses the same forgeries).
 *
 * @module
 */
import { fromBase64, toBase64, utf8 } from '../core/encoding.js';
import { canonicalJson } from '../core/protocol/manifest.js';
import {
  decisionSigningBytes,
  SignedDecisionSchema,
  type DecisionStatement,
  type SignedDecision,
} from '../core/protocol/decisions.js';
import { defaultBackend } from './backend/node-default.js';
import type { CryptoBackend, RawKeyPair } from './backend/types.js';

/**
 * Signs `statement` with the human's Ed25519 pair.
 *
 * @example
 * ```ts
 * const signed = await signDecision(statement, keys.signing);
 * ```
 */
export async function signDecision(
  statement: DecisionStatement,
  signing: RawKeyPair,
  backend: CryptoBackend = defaultBackend(),
): Promise<SignedDecision> {
  const signature = await backend.async.ed25519Sign(signing, decisionSigningBytes(statement));
  return { statement, signature: toBase64(signature) };
}

/**
 * True when `signed` is well-formed and its signature verifies under
 * `signingKey`. Never throws: anything malformed is `false`.
 */
export async function verifyDecision(
  signed: unknown,
  signingKey: Uint8Array,
  backend: CryptoBackend = defaultBackend(),
): Promise<boolean> {
  const parsed = SignedDecisionSchema.safeParse(signed);
  if (!parsed.success) return false;
  const signature = fromBase64(parsed.data.signature);
  if (signature?.length !== 64) return false;
  return backend.async.ed25519Verify(signingKey, decisionSigningBytes(parsed.data.statement), signature);
}

/**
 * SHA-256 (lowercase hex) of a manifest's canonical JSON: what an owner's
 * `manifest.accepted` / `manifest.rejected` statement names as `manifest_sha256`.
 *
 * @example
 * ```ts
 * const digest = manifestSha256(state.pending.manifest);
 * ```
 */
export function manifestSha256(manifest: unknown, backend: CryptoBackend = defaultBackend()): string {
  const digest = backend.sha256(utf8(canonicalJson(manifest)));
  let hex = '';
  for (const b of digest) hex += b.toString(16).padStart(2, '0');
  return hex;
}
