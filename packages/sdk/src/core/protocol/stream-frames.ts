/**
 * The frames of streamed replies (names in `STREAM_FRAMES` of
 * `service-names.ts`), parsed with zod: the agent's frames to the service, the
 * same frames relayed to the user's devices (with `conversation_id` and
 * `sender_id` added), and the service's answers to the agent. Every parser
 * returns a typed frame or `undefined` (never throws); see docs/streaming.md,
 * "Wire format".
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { STREAM_ERROR_VALUES, type StreamErrorValue } from '../errors/codes.js';
import { STREAM_LIMITS } from '../limits/streams.js';
import { isBase64 } from '../encoding.js';
import { base64Schema, IdentifierSchema } from './primitives.js';
import { STREAM_FRAMES } from './service-names.js';

/** A stream id: 1 to 64 characters of `[A-Za-z0-9_-]` (a UUID in practice). */
export const StreamIdSchema = z
  .string()
  .min(1)
  .max(STREAM_LIMITS.MAX_STREAM_ID_CHARS)
  .regex(/^[A-Za-z0-9_-]+$/);

const Seq = z.number().int().min(1).max(STREAM_LIMITS.MAX_SEQ);
const FinalSeq = z.number().int().min(0).max(STREAM_LIMITS.MAX_SEQ);
const DeltaCiphertext = base64Schema({ minBytes: 16, maxChars: STREAM_LIMITS.MAX_DELTA_CIPHERTEXT_CHARS });
const AbortCiphertext = base64Schema({ minBytes: 16, maxChars: STREAM_LIMITS.MAX_ABORT_CIPHERTEXT_CHARS });
const KeyEnvelope = base64Schema({ minBytes: 1, maxChars: STREAM_LIMITS.MAX_KEY_ENVELOPE_CHARS });

/** Body of a stream start (WebSocket frame and REST body). */
export const StreamStartBodySchema = z.strictObject({
  stream_id: StreamIdSchema,
  wire_envelope: KeyEnvelope,
});
/** One sealed delta. */
export const StreamDeltaBodySchema = z.strictObject({ seq: Seq, ciphertext: DeltaCiphertext });
/** REST body of a batch of deltas (webhook mode). */
export const StreamDeltaBatchSchema = z.strictObject({
  deltas: z.array(StreamDeltaBodySchema).min(1).max(STREAM_LIMITS.MAX_BATCH_DELTAS),
});
/** Body of a stream end. */
export const StreamEndBodySchema = z.strictObject({
  final_seq: FinalSeq,
  transcript_hash: base64Schema({ bytes: 32 }),
  signature: base64Schema({ bytes: 64 }),
});
/** Body of a stream abort (the sealed reason). */
export const StreamAbortBodySchema = z.strictObject({ ciphertext: AbortCiphertext });

const agentFrame = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.strictObject({ type: z.literal(type), stream_id: StreamIdSchema, ...shape });

/** A frame an agent sends to the service. */
export const AgentStreamFrameSchema = z.discriminatedUnion('type', [
  agentFrame(STREAM_FRAMES.start, {
    conversation_id: IdentifierSchema,
    wire_envelope: KeyEnvelope,
  }),
  agentFrame(STREAM_FRAMES.delta, StreamDeltaBodySchema.shape),
  agentFrame(STREAM_FRAMES.end, StreamEndBodySchema.shape),
  agentFrame(STREAM_FRAMES.abort, StreamAbortBodySchema.shape),
]);
/** A frame an agent sends to the service. */
export type AgentStreamFrame = z.output<typeof AgentStreamFrameSchema>;

const ErrorValue = z.enum(STREAM_ERROR_VALUES);

/** A frame the service relays to the user's devices. */
export const UserStreamFrameSchema = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal(STREAM_FRAMES.start),
    stream_id: StreamIdSchema,
    conversation_id: IdentifierSchema,
    sender_id: IdentifierSchema,
    wire_envelope: KeyEnvelope,
  }),
  z.looseObject({
    type: z.literal(STREAM_FRAMES.delta),
    stream_id: StreamIdSchema,
    ...StreamDeltaBodySchema.shape,
  }),
  z.looseObject({
    type: z.literal(STREAM_FRAMES.end),
    stream_id: StreamIdSchema,
    ...StreamEndBodySchema.shape,
  }),
  z.looseObject({
    type: z.literal(STREAM_FRAMES.abort),
    stream_id: StreamIdSchema,
    ...StreamAbortBodySchema.shape,
  }),
  z.looseObject({ type: z.literal(STREAM_FRAMES.error), stream_id: StreamIdSchema, reason: ErrorValue }),
]);
/** A frame the service relays to the user's devices. */
export type UserStreamFrame = z.output<typeof UserStreamFrameSchema>;

/** A frame the service sends to the agent about one of its streams. */
export const ServiceStreamFrameSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal(STREAM_FRAMES.accepted), stream_id: StreamIdSchema }),
  z.looseObject({ type: z.literal(STREAM_FRAMES.closed), stream_id: StreamIdSchema }),
  z.looseObject({
    type: z.literal(STREAM_FRAMES.error),
    stream_id: StreamIdSchema,
    reason: ErrorValue,
    code: z.string().max(64).optional(),
  }),
]);
/** A frame the service sends to the agent about one of its streams. */
export type ServiceStreamFrame = z.output<typeof ServiceStreamFrameSchema>;

const STREAM_FRAME_TYPES: ReadonlySet<string> = new Set(Object.values(STREAM_FRAMES));

/** True when `type` is one of the `STREAM_FRAMES` names. */
export function isStreamFrameType(type: unknown): boolean {
  return typeof type === 'string' && STREAM_FRAME_TYPES.has(type);
}

type DeltaFrame = Extract<AgentStreamFrame, { type: 'stream.delta' }>;

const STREAM_ID_CHARS = /^[A-Za-z0-9_-]+$/;

/**
 * The hot path: a `stream.delta` frame every field of which is well formed,
 * checked by hand (the same rules as the zod schema, without building an
 * issue list or decoding the base64 to count its bytes). Anything it does
 * not accept goes through the zod schema, which decides (and says why), so
 * the two parsers accept exactly the same frames. `strict`: no other keys.
 */
function wellFormedDelta(value: unknown, strict: boolean): value is DeltaFrame {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  if (v['type'] !== STREAM_FRAMES.delta) return false;
  const id = v['stream_id'];
  const seq = v['seq'];
  const ct = v['ciphertext'];
  if (typeof id !== 'string' || id.length === 0 || id.length > STREAM_LIMITS.MAX_STREAM_ID_CHARS)
    return false;
  if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 1 || seq > STREAM_LIMITS.MAX_SEQ)
    return false;
  if (typeof ct !== 'string' || ct.length > STREAM_LIMITS.MAX_DELTA_CIPHERTEXT_CHARS) return false;
  if (strict && Object.keys(v).length !== 4) return false;
  if (!STREAM_ID_CHARS.test(id) || !isBase64(ct)) return false;
  const pad = ct.endsWith('==') ? 2 : ct.endsWith('=') ? 1 : 0;
  return (ct.length / 4) * 3 - pad >= 16;
}

/** An agent's stream frame, or `undefined` for anything malformed. */
export function parseAgentStreamFrame(value: unknown): AgentStreamFrame | undefined {
  if (wellFormedDelta(value, true)) return value;
  return AgentStreamFrameSchema.safeParse(value).data;
}

/** A relayed stream frame (user side), or `undefined` for anything malformed. */
export function parseUserStreamFrame(value: unknown): UserStreamFrame | undefined {
  if (wellFormedDelta(value, false)) return value;
  return UserStreamFrameSchema.safeParse(value).data;
}

/** A service answer about a stream (agent side), or `undefined` for anything malformed. */
export function parseServiceStreamFrame(value: unknown): ServiceStreamFrame | undefined {
  return ServiceStreamFrameSchema.safeParse(value).data;
}

/** The catalogue code that goes with a stream error value (REST answers and {@link StreamErrorValue}s). */
export const STREAM_ERROR_CODES = Object.freeze({
  stream_timeout: 'STREAM_TIMEOUT',
  orphan_detected: 'STREAM_TIMEOUT',
  client_offline: 'NOT_FOUND',
  peer_revoked: 'RELATION_REVOKED',
  rate_limited: 'RATE_LIMITED',
} as const satisfies Record<StreamErrorValue, string>);
