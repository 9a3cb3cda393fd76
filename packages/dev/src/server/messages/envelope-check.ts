/**
 * What the server checks of an envelope it relays (header only; it never
 * decrypts). Every failure is 400 INVALID_ENVELOPE with `params.reason`:
 *
 * | reason | Rule |
 * |---|---|
 * | `not_base64` | `wire_envelope` is canonical padded standard base64 |
 * | `malformed` | the v1.1 (or legacy v1.0) layout parses (magic, version, suite, ids, created_at, recipients, sizes) |
 * | `sender_mismatch` | the header's sender id is the caller |
 * | `conversation_mismatch` | the header's conversation id is the request's |
 * | `unknown_recipient` | every recipient id is a member of the conversation |
 * | `missing_recipient` | every other member has a wrap for its current key (extra wraps for keys in grace, or for the sender itself, are fine) |
 *
 * The signature is not checked here: receivers verify it against the
 * sender's published key.
 *
 * @module
 */
import { decodeBase64Strict } from 'agent-messaging-sdk/protocol';
import { parseEnvelope, type EnvelopeHeader } from 'agent-messaging-sdk/protocol';
import { fingerprintBytes } from 'agent-messaging-sdk/protocol';
import { fromBase64 } from 'agent-messaging-sdk/protocol';
import { fail, type ServerFailure } from '../http/failure.js';

/** A member of the conversation and the public key senders must wrap to (base64). */
export interface EnvelopeMember {
  readonly id: string;
  readonly currentPublicKey: string;
}

/** What the envelope must match. */
export interface EnvelopeExpectation {
  readonly senderId: string;
  readonly conversationId: string;
  readonly members: readonly EnvelopeMember[];
}

function invalid(reason: string, message: string): ServerFailure {
  return fail('INVALID_ENVELOPE', message, { reason });
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function checkRecipients(header: EnvelopeHeader, expect: EnvelopeExpectation): void {
  const ids = new Set(expect.members.map((m) => m.id));
  // The sender's wraps to itself are fine even when it is not among the members to wrap to
  // (a group member not yet in the owner-signed roster).
  if (header.recipients.some((r) => !ids.has(r.id) && r.id !== expect.senderId)) {
    throw invalid('unknown_recipient', 'The envelope is addressed to someone outside the conversation.');
  }
  for (const member of expect.members) {
    if (member.id === expect.senderId) continue;
    const key = fromBase64(member.currentPublicKey);
    const fp = key === undefined ? undefined : fingerprintBytes(key);
    const wrapped = header.recipients.some(
      (r) => r.id === member.id && fp !== undefined && sameBytes(r.fingerprint, fp),
    );
    if (!wrapped) {
      throw invalid('missing_recipient', "The envelope has no key wrap for a member's current public key.");
    }
  }
}

/**
 * Checks the envelope's header against the request.
 *
 * @returns the parsed header.
 * @throws {@link ServerFailure} INVALID_ENVELOPE with `params.reason`.
 */
export function checkEnvelope(wireEnvelope: string, expect: EnvelopeExpectation): EnvelopeHeader {
  const bytes = decodeBase64Strict(wireEnvelope);
  if (bytes === undefined || bytes.length === 0) {
    throw invalid('not_base64', 'wire_envelope must be canonical padded base64.');
  }
  let header: EnvelopeHeader;
  try {
    header = parseEnvelope(bytes).header;
  } catch {
    throw invalid('malformed', 'wire_envelope is not a valid v1.x envelope.');
  }
  if (header.senderId !== expect.senderId) {
    throw invalid('sender_mismatch', "The envelope's sender id is not the caller.");
  }
  if (header.conversationId !== expect.conversationId) {
    throw invalid('conversation_mismatch', "The envelope's conversation id is not the request's.");
  }
  checkRecipients(header, expect);
  return header;
}
