/**
 * The ghost detector (security issue #24): a recipient that finds, in an
 * envelope it opened, a wrap addressed to its own id under a key it does not
 * hold reports it. Every v1.1 (and v1.0) recipient entry records the
 * recipient id and the fingerprint of the key wrapped to (docs/envelope.md,
 * "header"), and both are signed by the sender, so no format change is
 * needed: the sender's own signature says "I wrapped this message for you
 * under key F". If F is not one of the recipient's keys, someone (the
 * service, which serves the keys) made the sender wrap to a key that is not
 * the recipient's: a ghost key that reads everything sent to it.
 *
 * What it cannot tell: a key of the recipient's own that it no longer holds
 * (an old generation whose grace ended, a device's key it never had) looks
 * the same. The warning carries the fingerprint so an app can compare it
 * with its own history.
 *
 * @module
 */
import type { OpenedRecipient } from '../crypto/open-options.js';

/** A wrap addressed to this principal under a key it does not hold (typed event `keyWarning`). */
export interface KeyWarning {
  /** `ghost_key`: the sender wrapped to a key listed under this principal's id that is not one of its keys. */
  readonly kind: 'ghost_key';
  /** The signed sender id of the envelope (who was made to wrap to the ghost). */
  readonly senderId: string;
  /** The signed conversation id. */
  readonly conversationId: string;
  /** The signed message id. */
  readonly messageId: string;
  /** Fingerprints (16 hex characters) of the keys listed for this principal that it does not hold. */
  readonly fingerprints: readonly string[];
  /** Fingerprints of the keys this principal holds (what was compared). */
  readonly ownFingerprints: readonly string[];
}

/**
 * The fingerprints listed for `recipientId` in `recipients` that are not in
 * `own`, in envelope order without repeats; empty when every wrap to
 * `recipientId` is to one of its keys.
 */
export function ghostFingerprints(
  recipients: readonly OpenedRecipient[],
  recipientId: string,
  own: ReadonlySet<string>,
): string[] {
  const ghosts: string[] = [];
  for (const r of recipients) {
    if (r.id === recipientId && !own.has(r.fingerprint) && !ghosts.includes(r.fingerprint)) {
      ghosts.push(r.fingerprint);
    }
  }
  return ghosts;
}

/** The {@link KeyWarning} of an opened envelope, or undefined when it lists no ghost key. */
export function ghostKeyWarning(
  opened: {
    readonly recipients: readonly OpenedRecipient[];
    readonly senderId: string;
    readonly conversationId: string;
    readonly messageId: string;
  },
  recipientId: string,
  own: ReadonlySet<string>,
): KeyWarning | undefined {
  const fingerprints = ghostFingerprints(opened.recipients, recipientId, own);
  if (fingerprints.length === 0) return undefined;
  return {
    kind: 'ghost_key',
    senderId: opened.senderId,
    conversationId: opened.conversationId,
    messageId: opened.messageId,
    fingerprints,
    ownFingerprints: [...own],
  };
}
