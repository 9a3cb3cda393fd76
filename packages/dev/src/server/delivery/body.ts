/**
 * Delivery bodies: `{ type, version, wire_envelope, metadata }`, or, when that
 * would exceed 1 MB, the ciphertext stored as an object and
 * `{ type, version, wire_envelope: null, ref, metadata }`. The same body goes
 * to webhooks and (plus `delivery_id`) to WebSockets.
 *
 * Queued deliveries keep only the event and the `ref`: the body is built when
 * the delivery reaches the head of its queue, so a long queue holds no
 * second copy of every envelope.
 *
 * @module
 */
import { fromBase64, utf8 } from 'agent-messaging-sdk/protocol';
import { WEBHOOK_BODY_VERSION } from 'agent-messaging-sdk/protocol';
import { OBJECT_CONTENT_TYPE, type ObjectStore } from './objects.js';
import type { OutboundEvent } from './types.js';

/** The `ref` of an oversize delivery (wire field names). */
export interface WireRef {
  readonly type: 'r2';
  readonly object_key: string;
  readonly size: number;
  readonly content_type: string;
}

/** UTF-8 length of a string without encoding it. */
export function utf8Length(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 2; // surrogate pair: 2 UTF-16 units → 4 bytes
        i++;
      } else n += 2; // lone surrogate → U+FFFD, 3 bytes
    } else n += 2;
  }
  return n;
}

function metadataOf(event: OutboundEvent): Record<string, string> {
  const { conversation_id, sender_id, created_at } = event.metadata;
  return { conversation_id, sender_id, created_at };
}

/** The delivery body of an event (inline, or with its `ref`). */
export function bodyOf(event: OutboundEvent, ref: WireRef | undefined): Record<string, unknown> {
  const metadata = metadataOf(event);
  return ref === undefined
    ? { type: event.type, version: WEBHOOK_BODY_VERSION, wire_envelope: event.wireEnvelope, metadata }
    : { type: event.type, version: WEBHOOK_BODY_VERSION, wire_envelope: null, ref, metadata };
}

/** The exact bytes POSTed (and signed) for a body. */
export function bodyBytes(body: Readonly<Record<string, unknown>>): Uint8Array {
  return utf8(JSON.stringify(body));
}

/** What {@link prepareRef} decided. */
export type RefDecision =
  | { readonly ok: true; readonly ref: WireRef | undefined }
  | { readonly ok: false; readonly reason: 'invalid_envelope' };

/**
 * Decides whether the event fits inline (body ≤ `maxInlineBytes`); if not,
 * stores its ciphertext as an object of the agent and returns the `ref`.
 */
export function prepareRef(
  event: OutboundEvent,
  agentId: string,
  objects: ObjectStore,
  maxInlineBytes: number,
): RefDecision {
  // An envelope alone over the cap cannot fit: skip serialising the body.
  if (event.wireEnvelope.length <= maxInlineBytes) {
    const size = utf8Length(JSON.stringify(bodyOf(event, undefined)));
    if (size <= maxInlineBytes) return { ok: true, ref: undefined };
  }
  const ciphertext = fromBase64(event.wireEnvelope);
  if (ciphertext === undefined) return { ok: false, reason: 'invalid_envelope' };
  const objectKey = objects.put(agentId, ciphertext, OBJECT_CONTENT_TYPE);
  return {
    ok: true,
    ref: { type: 'r2', object_key: objectKey, size: ciphertext.length, content_type: OBJECT_CONTENT_TYPE },
  };
}
