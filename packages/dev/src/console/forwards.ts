/**
 * How the console shows a forwarded copy (security issue #24, item 8): the
 * original sender's name only when the forward proof verified against that
 * sender's key; otherwise the text is labelled as the forwarder's unverified
 * claim, and the claimed sender is never shown as the author.
 *
 * @module
 */
import type { ForwardAttribution } from 'agent-messaging-sdk/protocol';

/** The bubble text of a forwarded copy; `name` maps ids to display names. */
export function forwardLabel(f: ForwardAttribution, name: (id: string) => string): string {
  const inner =
    f.payload['type'] === 'text' ? String(f.payload['text'] ?? '') : `[${String(f.payload['type'])}]`;
  if (f.verified) return `↪ forwarded from ${name(f.senderId)} (verified): ${inner}`;
  return `↪ forwarded by ${name(f.forwardedBy)}, unverified claim (${f.reason ?? 'no_proof'}) that ${name(f.senderId)} wrote: ${inner}`;
}
