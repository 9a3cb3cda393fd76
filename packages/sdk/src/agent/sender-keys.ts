/**
 * Sender signing keys for the pipeline: the key directory's answer, decoded
 * once per sender and kept for a short time, so opening a busy
 * conversation's envelopes does not decode the same base64 key for every
 * message. A signature failure drops the entry (and the directory's) so the
 * next lookup asks the service again.
 *
 * @module
 */
import type { Clock } from '../core/clock.js';
import type { KeyDirectory } from '../messaging/key-directory.js';
import type { PipelineKeys } from './pipeline/types.js';

/** How long a decoded sender key is reused, ms (the directory itself caches for 5 minutes). */
export const SENDER_KEY_MEMO_MS = 60_000;

/** Most senders remembered at once (oldest dropped first). */
const MAX_SENDERS = 10_000;

interface Memo {
  readonly key: Promise<Uint8Array | undefined>;
  readonly until: number;
}

/** The pipeline's view of the key directory, with decoded keys memoised per sender. */
export function senderKeys(
  directory: Pick<KeyDirectory, 'signingKey' | 'invalidate' | 'retiredSigningKeys'>,
  clock: Clock,
): Pick<PipelineKeys, 'signingKey' | 'invalidate' | 'retiredSigningKeys'> {
  const memo = new Map<string, Memo>();
  return {
    signingKey(senderId) {
      const hit = memo.get(senderId);
      const now = clock.now();
      if (hit !== undefined && now < hit.until) return hit.key;
      if (memo.size >= MAX_SENDERS) memo.delete(memo.keys().next().value!);
      const key = directory.signingKey(senderId);
      const entry = { key, until: now + SENDER_KEY_MEMO_MS };
      memo.set(senderId, entry);
      // A failed lookup is not remembered.
      key.catch(() => memo.get(senderId) === entry && memo.delete(senderId));
      return key;
    },
    invalidate(senderId) {
      memo.delete(senderId);
      directory.invalidate(senderId);
    },
    retiredSigningKeys: (senderId) => directory.retiredSigningKeys(senderId),
  };
}
