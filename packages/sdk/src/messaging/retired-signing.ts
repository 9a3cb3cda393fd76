/**
 * Retired signing keys, accepted alike by the Agent and the UserClient: a
 * sender's retired Ed25519 key (a generation still in its grace) verifies only
 * messages whose signed `created_at` is before the key's retirement. A
 * message signed with it later is refused (reason `signature`), so a retired
 * key, erased by its owner at rotation and possibly the reason for it, cannot
 * sign anything new; with the acceptance window (24 h 5 min), it stops
 * verifying anything at all 24 h 5 min after its retirement.
 *
 * @module
 */
import { openAsync } from '../crypto/open.js';
import type { OpenAsyncOptions, OpenedEnvelope } from '../crypto/open-options.js';
import type { RetiredSigningKey } from './key-directory.js';

/** True when a message signed at `createdAt` may be verified by a key retired at `retiredAtMs`. */
export function signedBeforeRetirement(createdAt: string, retiredAtMs: number): boolean {
  return Date.parse(createdAt) < retiredAtMs;
}

/**
 * Opens `input` with each retired signing key in turn; returns the first
 * result whose signed `created_at` precedes that key's retirement, or
 * `undefined` when none does.
 */
export async function openWithRetiredKeys(
  input: string | Uint8Array,
  options: Omit<OpenAsyncOptions, 'senderKey'>,
  retired: readonly RetiredSigningKey[],
): Promise<OpenedEnvelope | undefined> {
  for (const r of retired) {
    let opened: OpenedEnvelope;
    try {
      opened = await openAsync(input, { ...options, senderKey: r.key });
    } catch {
      continue; // not this key
    }
    if (signedBeforeRetirement(opened.createdAt, r.retiredAtMs)) return opened;
  }
  return undefined;
}
