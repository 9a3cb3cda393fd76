/**
 * WebSocket event frames as the pipeline sees them ({@link InboundEvent}).
 *
 * Known types arrive validated by the dispatcher (`parseWsFrame`). A frame of
 * a type this SDK does not know (e.g. `delivery.failed`) reaches the
 * dispatcher's `unknownFrame`; when it has the shape of an event (a
 * `delivery_id` plus an envelope, a `ref` or a cleartext `payload`) it is
 * checked here and goes through the pipeline too, so newer event types reach
 * the agent's catch-all `event` listeners instead of being dropped.
 *
 * @module
 */
import * as z from '../../core/lazy-zod.js';
import { EVENT_TYPE_MAX_CHARS } from '../../core/protocol/event-types.js';
import { ObjectRefSchema } from '../../core/protocol/object-ref.js';
import { parseWith } from '../../core/protocol/parse.js';
import { IdentifierSchema } from '../../core/protocol/primitives.js';
import { DeliveryMetadataSchema, inlineEnvelopeShape } from '../../core/protocol/webhook-delivery.js';
import type { WsEventFrame } from '../../core/protocol/ws-frames.js';
import type { InboundEvent } from './types.js';

/** A `delivery_id` as carried in frames: an opaque identifier. */
const DeliveryIdSchema = IdentifierSchema;

/** An event frame of a type this SDK does not know. */
export const UnknownEventFrameSchema = z
  .looseObject({
    type: z.string().min(1).max(EVENT_TYPE_MAX_CHARS),
    delivery_id: DeliveryIdSchema,
    wire_envelope: z.union([inlineEnvelopeShape.wire_envelope, z.null()]).optional(),
    ref: ObjectRefSchema.optional(),
    metadata: DeliveryMetadataSchema.optional(),
    payload: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((v, ctx) => {
    const inline = typeof v.wire_envelope === 'string';
    if (inline && v.ref !== undefined)
      ctx.addIssue({ code: 'custom', path: ['ref'], message: 'Must be absent' });
    if (!inline && v.ref === undefined && v.payload === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['wire_envelope'],
        message: 'An envelope, ref or payload is required',
      });
    }
  });
/** An unknown-type event frame. */
export type UnknownEventFrame = z.output<typeof UnknownEventFrameSchema>;

function deliveryIdOf(frame: Readonly<Record<string, unknown>>): string | undefined {
  const id = frame['delivery_id'];
  return DeliveryIdSchema.safeParse(id).success ? (id as string) : undefined;
}

/** The pipeline's view of a validated event frame. */
export function inboundOfFrame(frame: WsEventFrame | UnknownEventFrame): InboundEvent {
  const record = frame as Readonly<Record<string, unknown>>;
  return {
    type: frame.type,
    deliveryId: deliveryIdOf(record),
    wireEnvelope: typeof frame.wire_envelope === 'string' ? frame.wire_envelope : undefined,
    ref: frame.ref,
    metadata: frame.metadata,
    payload: frame.payload,
    ...(record['redelivered'] === true ? { redelivered: true } : {}),
  };
}

/** True when an unknown frame looks like an event (rather than, say, a server `error` frame). */
export function looksLikeEvent(frame: Readonly<Record<string, unknown>>): boolean {
  return 'delivery_id' in frame && ('wire_envelope' in frame || 'ref' in frame || 'payload' in frame);
}

/**
 * Validates an unknown-type frame that looks like an event.
 *
 * @throws {@link ValidationError} (paths and reasons, never values).
 */
export function parseUnknownEventFrame(frame: Readonly<Record<string, unknown>>): UnknownEventFrame {
  return parseWith(UnknownEventFrameSchema, frame, 'event frame');
}
