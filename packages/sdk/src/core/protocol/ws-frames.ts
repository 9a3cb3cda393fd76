/**
 * WebSocket frames: the control frames the service names (`auth`, `auth.ok`,
 * `auth.error`, `auth.renew`, `session.invalidated`) and event frames.
 *
 * Every frame is a JSON object with a string `type`. {@link parseWsFrame}
 * sorts a frame into `control`, `event` or `unknown`; a frame whose `type`
 * this SDK does not know is returned as `unknown` (not an error) so a newer
 * service cannot crash an older agent. Malformed JSON, a non-object, a
 * missing `type`, or a known frame with bad fields is a ValidationError.
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { EVENT_TYPES, type EventType } from './events.js';
import { parseJson, parseWith, validationError } from './parse.js';
import { IdentifierSchema } from './primitives.js';
import {
  inlineEnvelopeShape,
  DeliveryMetadataSchema,
  refineCleartextPayload,
  WEBHOOK_BODY_VERSION,
} from './webhook-delivery.js';
import { ObjectRefSchema } from './object-ref.js';

/** Upper bound on a credential inside a frame, in characters (not shown; our bound). */
export const FRAME_CREDENTIAL_MAX_CHARS = 8192;

/**
 * `auth` (client → server), within 5 s of the upgrade. `token` is checked
 * only for presence: a malformed token must get the same `auth.error` as a
 * wrong one, so the format check belongs to the server's token lookup.
 */
export const AuthFrameSchema = z.looseObject({
  type: z.literal('auth'),
  agent_id: IdentifierSchema,
  token: z.string().min(1).max(FRAME_CREDENTIAL_MAX_CHARS),
  /** The client acknowledges deliveries (gap decision: acknowledged WebSocket delivery). */
  ack: z.literal(true).optional(),
  /** The client shares delivery with other copies of the agent (gap decision: several live sockets). */
  share: z.literal(true).optional(),
});
/** The `auth` frame. */
export type AuthFrame = z.output<typeof AuthFrameSchema>;

/**
 * The terms of acknowledged delivery in `auth.ok` (gap decision): at most
 * `window` deliveries are unacknowledged at once; one not acknowledged
 * within `timeout_ms` is sent again.
 */
export const AckTermsSchema = z.looseObject({
  window: z.number().int().min(1).max(1_000_000),
  timeout_ms: z.number().int().min(1).max(86_400_000),
});
/** The `ack` terms of `auth.ok`. */
export type AckTerms = z.output<typeof AckTermsSchema>;

/**
 * The terms of shared delivery in `auth.ok` (gap decision "Several live
 * sockets per agent"): at most `max_sockets` live sockets per agent.
 */
export const ShareTermsSchema = z.looseObject({
  max_sockets: z.number().int().min(1).max(10_000),
});
/** The `share` terms of `auth.ok`. */
export type ShareTerms = z.output<typeof ShareTermsSchema>;

/**
 * `auth.ok` (server → client): authentication succeeded. `ack` is present
 * when the service accepted acknowledged delivery; a malformed `ack` is read
 * as absent (the client then behaves as with a service without acks).
 * `share` is present when the service lets this socket share the agent's
 * delivery with other live sockets (malformed: absent).
 */
export const AuthOkFrameSchema = z.looseObject({
  type: z.literal('auth.ok'),
  ack: AckTermsSchema.optional().catch(undefined),
  share: ShareTermsSchema.optional().catch(undefined),
});
/** The `auth.ok` frame. */
export type AuthOkFrame = z.output<typeof AuthOkFrameSchema>;

/** The `auth.error` reasons the service names. Other values are not shown and are kept as-is. */
export const AUTH_ERROR_REASONS = ['invalid_token'] as const;
/** A known `auth.error` reason. */
export type KnownAuthErrorReason = (typeof AUTH_ERROR_REASONS)[number];

/** `auth.error` (server → client): authentication failed; `reason` says why. */
export const AuthErrorFrameSchema = z.looseObject({
  type: z.literal('auth.error'),
  reason: z
    .string()
    .min(1)
    .max(100)
    .transform((r) => r as KnownAuthErrorReason | (string & {})),
});
/** The `auth.error` frame. */
export type AuthErrorFrame = z.output<typeof AuthErrorFrameSchema>;

/** `auth.renew` (client → server): a new access token for an open connection. */
export const AuthRenewFrameSchema = z.looseObject({
  type: z.literal('auth.renew'),
  access_token: z.string().min(1).max(FRAME_CREDENTIAL_MAX_CHARS),
});
/** The `auth.renew` frame. */
export type AuthRenewFrame = z.output<typeof AuthRenewFrameSchema>;

/** `session.invalidated` (server → client): the device session was revoked; the connection closes. */
export const SessionInvalidatedFrameSchema = z.looseObject({ type: z.literal('session.invalidated') });
/** The `session.invalidated` frame. */
export type SessionInvalidatedFrame = z.output<typeof SessionInvalidatedFrameSchema>;

/** Most delivery ids one `ack` frame carries. */
export const ACK_FRAME_MAX_IDS = 1000;

/** `ack` (client → server): these deliveries are done with (gap decision). */
export const AckFrameSchema = z.looseObject({
  type: z.literal('ack'),
  delivery_ids: z.array(z.string().min(1).max(64)).min(1).max(ACK_FRAME_MAX_IDS),
});
/** The `ack` frame. */
export type AckFrame = z.output<typeof AckFrameSchema>;

/** Any control frame. */
export const WsControlFrameSchema = z.discriminatedUnion('type', [
  AuthFrameSchema,
  AckFrameSchema,
  AuthOkFrameSchema,
  AuthErrorFrameSchema,
  AuthRenewFrameSchema,
  SessionInvalidatedFrameSchema,
]);
/** A control frame. */
export type WsControlFrame = z.output<typeof WsControlFrameSchema>;

/** Control frame types. */
export const WS_CONTROL_FRAME_TYPES = [
  'auth',
  'ack',
  'auth.ok',
  'auth.error',
  'auth.renew',
  'session.invalidated',
] as const;
/** A control frame type. */
export type WsControlFrameType = (typeof WS_CONTROL_FRAME_TYPES)[number];

/** Event types carried by event frames: every known event except `session.invalidated` (a control frame). */
export const WS_EVENT_FRAME_TYPES = EVENT_TYPES.filter(
  (t): t is Exclude<EventType, 'session.invalidated'> => t !== 'session.invalidated',
);

/**
 * An event frame (server → client). Its layout is not shown by the service;
 * the SDK's model: `type`, then either the envelope fields of a webhook
 * delivery body (`version`, `wire_envelope` / `ref`, `metadata`), or a
 * cleartext `payload`, or both, plus anything else (kept as-is).
 */
export const WsEventFrameSchema = z
  .looseObject({
    type: z.enum(
      WS_EVENT_FRAME_TYPES as [
        Exclude<EventType, 'session.invalidated'>,
        ...Exclude<EventType, 'session.invalidated'>[],
      ],
    ),
    version: z.literal(WEBHOOK_BODY_VERSION).optional(),
    wire_envelope: z.union([inlineEnvelopeShape.wire_envelope, z.null()]).optional(),
    ref: ObjectRefSchema.optional(),
    metadata: DeliveryMetadataSchema.optional(),
    payload: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((v, ctx) => {
    if (typeof v.wire_envelope === 'string' && v.ref !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['ref'], message: 'Must be absent when wire_envelope is set' });
    }
    if (v.wire_envelope === null && v.ref === undefined) {
      ctx.addIssue({ code: 'custom', path: ['ref'], message: 'Required when wire_envelope is null' });
    }
    refineCleartextPayload(v, ctx);
  });
/** An event frame. */
export type WsEventFrame = z.output<typeof WsEventFrameSchema>;

/** The result of {@link parseWsFrame}. */
export type ParsedWsFrame =
  | { readonly kind: 'control'; readonly frame: WsControlFrame }
  | { readonly kind: 'event'; readonly frame: WsEventFrame }
  | { readonly kind: 'unknown'; readonly type: string; readonly frame: Readonly<Record<string, unknown>> };

const CONTROL_SET: ReadonlySet<string> = new Set(WS_CONTROL_FRAME_TYPES);
const EVENT_SET: ReadonlySet<string> = new Set(WS_EVENT_FRAME_TYPES);

/**
 * Parses one WebSocket text frame.
 *
 * @returns `control` or `event` for known types (fully validated); `unknown`
 * for a type this SDK does not know (the object kept as-is).
 * @throws {@link ValidationError} for malformed JSON, a non-object, a missing or
 * non-string `type`, or a known frame with bad fields. Never quotes the frame.
 * @example
 * ```ts
 * const parsed = parseWsFrame(text);
 * if (parsed.kind === 'control' && parsed.frame.type === 'auth.error') console.warn(parsed.frame.reason);
 * ```
 */
export function parseWsFrame(text: string): ParsedWsFrame {
  const json = parseJson(text, 'WebSocket frame');
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw validationError('WebSocket frame', [{ path: [], message: 'Expected a JSON object' }]);
  }
  const record = json as Record<string, unknown>;
  const type = record['type'];
  if (typeof type !== 'string' || type.length === 0) {
    throw validationError('WebSocket frame', [{ path: ['type'], message: 'Expected a non-empty string' }]);
  }
  if (CONTROL_SET.has(type)) {
    return { kind: 'control', frame: parseWith(WsControlFrameSchema, record, `${type} frame`) };
  }
  if (EVENT_SET.has(type)) {
    return { kind: 'event', frame: parseWith(WsEventFrameSchema, record, `${type} frame`) };
  }
  return { kind: 'unknown', type: type.slice(0, 100), frame: record };
}

/** Options of {@link authFrame}. */
export interface AuthFrameOptions {
  /** The agent's identifier. */
  agentId: string;
  /** The agent token (`hsk_…`). */
  token: string;
  /** Ask for acknowledged delivery (`ack: true`). @defaultValue `false` */
  ack?: boolean;
  /** Share the agent's delivery with its other live sockets (`share: true`). @defaultValue `false` */
  share?: boolean;
}

/**
 * Builds the `auth` frame text to send right after the upgrade. The token
 * goes in the frame, never in the URL.
 *
 * @example
 * ```ts
 * socket.send(authFrame({ agentId, token }));
 * ```
 */
export function authFrame(options: AuthFrameOptions): string {
  const frame: AuthFrame = { type: 'auth', agent_id: options.agentId, token: options.token };
  if (options.ack === true) frame.ack = true;
  if (options.share === true) frame.share = true;
  return JSON.stringify(frame);
}

/**
 * Builds an `ack` frame text for up to {@link ACK_FRAME_MAX_IDS} delivery ids.
 *
 * @example
 * ```ts
 * socket.send(ackFrame(['0190…', '0190…']));
 * ```
 */
export function ackFrame(deliveryIds: readonly string[]): string {
  const frame: AckFrame = { type: 'ack', delivery_ids: [...deliveryIds] };
  return JSON.stringify(frame);
}

/** Builds the `auth.renew` frame text carrying a new access token. */
export function authRenewFrame(accessToken: string): string {
  const frame: AuthRenewFrame = { type: 'auth.renew', access_token: accessToken };
  return JSON.stringify(frame);
}

/** Serialises any frame (control or event) to its text form. */
export function encodeWsFrame(frame: WsControlFrame | WsEventFrame): string {
  return JSON.stringify(frame);
}
