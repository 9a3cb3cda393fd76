/**
 * Artifacts (interactive requests an agent sends to a human), their answers,
 * forwarding and reactions: the sealed payloads (plaintext inside an
 * envelope, never seen by the service) and the cleartext routing metadata
 * of their requests (what the service needs and nothing more).
 *
 * | Payload `type` | Sealed as event | Carries |
 * |---|---|---|
 * | `artifact` | `message.new` | {@link ArtifactPayload}: id, revision, flags, the {@link ArtifactContent} |
 * | `artifact_response` | `artifact_response` | {@link ArtifactAnswerPayload}: approved with data, or denied with a reason |
 * | `reaction` | `reaction.update` | {@link ReactionPayload}: the message reacted to, the emoji, add or remove |
 * | `forwarded` | `message.new` | {@link ForwardedPayload}: the original's ids and its payload |
 *
 * Kinds of artifact are a discriminated union on `kind`: a new kind is one
 * more member of {@link ArtifactContentSchema}.
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { ARTIFACT_DENIED_REASONS, type ArtifactDeniedReason } from '../errors/codes.js';
import type { SameType } from './same-type.js';
import { parseWith } from './parse.js';
import { base64Schema, IdentifierSchema, IsoUtcMillisSchema } from './primitives.js';

/** Forward targets per request (the spec's limit; more is `FORWARD_TARGET_LIMIT`). */
export const FORWARD_TARGET_MAX = 10;

/**
 * Longest original envelope a forward proof carries, in base64 characters
 * (512 KiB), and the SDK's budget for the proofs of all the copies of one
 * forward request (the original's length times the number of targets): each
 * copy holds the original inside its own envelope, and the copies travel in
 * one request under the service's body limit. Past the budget, the copies
 * are forwarded without a proof.
 */
export const FORWARD_PROOF_MAX_CHARS = 512 * 1024;

/** Bounds of the artifact windows, in milliseconds (our choice; docs/artifacts.md). */
export const ARTIFACT_LIMITS = Object.freeze({
  /** Unanswered high-sensitivity artifacts are denied `user_timeout` after this (the spec's 30 s). */
  highSensitivityTimeoutMs: 30_000,
  /** Shortest and longest time to live. */
  minTtlMs: 1_000,
  maxTtlMs: 7 * 24 * 60 * 60 * 1000,
  /** Time to live when none is given. */
  defaultTtlMs: 24 * 60 * 60 * 1000,
  /** Shortest and longest `tool.timeout_ms`. */
  minToolTimeoutMs: 100,
  maxToolTimeoutMs: 60 * 60 * 1000,
  /** Form fields at most. */
  maxFormFields: 50,
});

/** How sensitive an artifact is: `high` ones are denied `user_timeout` after 30 s unanswered. */
export const ARTIFACT_SENSITIVITIES = ['normal', 'high'] as const;
/** An artifact's sensitivity. */
export type ArtifactSensitivity = (typeof ARTIFACT_SENSITIVITIES)[number];

/** Denied reasons a human's client gives in its answer. */
export const HUMAN_DENIED_REASONS = ['user_rejected', 'tool_not_implemented'] as const;
/** A denied reason a human's client gives. */
export type HumanDeniedReason = (typeof HUMAN_DENIED_REASONS)[number];
/** Denied reasons the service gives (sealed by the system sender). */
export const SERVICE_DENIED_REASONS = [
  'user_timeout',
  'tool_not_supported_in_group',
  'permission_revoked',
  'tool_timeout',
] as const;
/** A denied reason the service gives. */
export type ServiceDeniedReason = (typeof SERVICE_DENIED_REASONS)[number];

const Title = z.string().min(1).max(200);
const FieldName = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'lower-case letters, digits and _');

/** A yes/no confirmation. */
export const ConfirmContentSchema = z.strictObject({
  kind: z.literal('confirm'),
  title: Title,
  body: z.string().max(4000).optional(),
});

/** One field of a form. */
export const FormFieldSchema = z
  .strictObject({
    name: FieldName,
    label: z.string().min(1).max(200),
    input: z.enum(['text', 'number', 'boolean', 'choice']),
    required: z.boolean().optional(),
    options: z.array(z.string().min(1).max(200)).min(1).max(100).optional(),
  })
  .refine((f) => (f.input === 'choice') === (f.options !== undefined), {
    message: 'options is required for a choice field and only for it',
    path: ['options'],
  });
/** One field of a form (`options` for a `choice` field, and only for it). */
export type FormField = {
  /** Key of the answer in `data`: lower-case letters, digits and `_`. */
  name: string;
  /** What the human reads. */
  label: string;
  /** The input shown. */
  input: 'text' | 'number' | 'boolean' | 'choice';
  /** True when the form cannot be sent without it. */
  required?: boolean | undefined;
  /** The choices of a `choice` field. */
  options?: string[] | undefined;
};
true satisfies SameType<z.output<typeof FormFieldSchema>, FormField>;

/** A form the human fills in. */
export const FormContentSchema = z
  .strictObject({
    kind: z.literal('form'),
    title: Title,
    fields: z.array(FormFieldSchema).min(1).max(ARTIFACT_LIMITS.maxFormFields),
  })
  .refine((f) => new Set(f.fields.map((x) => x.name)).size === f.fields.length, {
    message: 'field names must be unique',
    path: ['fields'],
  });

/** A request that the human's client runs a tool. */
export const ToolRequestContentSchema = z.strictObject({
  kind: z.literal('tool_request'),
  title: Title,
  tool: z.strictObject({
    name: z.string().min(1).max(100),
    arguments: z.record(z.string(), z.unknown()),
    timeout_ms: z.number().int().min(ARTIFACT_LIMITS.minToolTimeoutMs).max(ARTIFACT_LIMITS.maxToolTimeoutMs),
  }),
});

/** What an artifact asks: a discriminated union on `kind`. */
export const ArtifactContentSchema = z.discriminatedUnion('kind', [
  ConfirmContentSchema,
  FormContentSchema,
  ToolRequestContentSchema,
]);
/** A yes/no confirmation (`kind: 'confirm'`). */
export type ConfirmContent = {
  kind: 'confirm';
  title: string;
  body?: string | undefined;
};
/** A form the human fills in (`kind: 'form'`). */
export type FormContent = {
  kind: 'form';
  title: string;
  fields: FormField[];
};
/** A request that the human's client runs a tool (`kind: 'tool_request'`). */
export type ToolRequestContent = {
  kind: 'tool_request';
  title: string;
  tool: { name: string; arguments: Record<string, unknown>; timeout_ms: number };
};
/** What an artifact asks: a discriminated union on `kind`. */
export type ArtifactContent = ConfirmContent | FormContent | ToolRequestContent;
true satisfies SameType<z.output<typeof ArtifactContentSchema>, ArtifactContent>;
/** A kind of artifact. */
export type ArtifactKind = ArtifactContent['kind'];

/** The sealed payload of an artifact (one per revision). */
export const ArtifactPayloadSchema = z.strictObject({
  type: z.literal('artifact'),
  artifact_id: IdentifierSchema,
  revision: z.number().int().min(1),
  forwardable: z.boolean(),
  sensitivity: z.enum(ARTIFACT_SENSITIVITIES),
  content: ArtifactContentSchema,
});
/** The sealed payload of an artifact (`type: 'artifact'`), one per revision. */
export type ArtifactPayload = {
  type: 'artifact';
  artifact_id: string;
  revision: number;
  forwardable: boolean;
  sensitivity: ArtifactSensitivity;
  /** What it asks, discriminated on `kind`. */
  content: ArtifactContent;
};
true satisfies SameType<z.output<typeof ArtifactPayloadSchema>, ArtifactPayload>;

/** The sealed answer of a human (or the service) to an artifact. */
export const ArtifactAnswerPayloadSchema = z.discriminatedUnion('status', [
  z.strictObject({
    type: z.literal('artifact_response'),
    artifact_id: IdentifierSchema,
    revision: z.number().int().min(1),
    status: z.literal('approved'),
    data: z.record(z.string(), z.unknown()),
  }),
  z.strictObject({
    type: z.literal('artifact_response'),
    artifact_id: IdentifierSchema,
    revision: z.number().int().min(1),
    status: z.literal('denied'),
    reason: z.enum(ARTIFACT_DENIED_REASONS),
  }),
]);
/** The sealed answer to an artifact (`type: 'artifact_response'`), discriminated on `status`. */
export type ArtifactAnswerPayload =
  | {
      type: 'artifact_response';
      artifact_id: string;
      revision: number;
      status: 'approved';
      /** The answer: form fields by name, or the tool's result. */
      data: Record<string, unknown>;
    }
  | {
      type: 'artifact_response';
      artifact_id: string;
      revision: number;
      status: 'denied';
      reason: ArtifactDeniedReason;
    };
true satisfies SameType<z.output<typeof ArtifactAnswerPayloadSchema>, ArtifactAnswerPayload>;

/** The sealed payload of a reaction. */
export const ReactionPayloadSchema = z.strictObject({
  type: z.literal('reaction'),
  message_id: IdentifierSchema,
  /** One emoji (a short grapheme sequence, no ASCII letters or digits). */
  emoji: z
    .string()
    .min(1)
    .max(32)
    .refine((e) => !/[\s\w]/.test(e), { message: 'an emoji, not text' }),
  action: z.enum(['add', 'remove']),
});
/** The sealed payload of a reaction (`type: 'reaction'`). */
export type ReactionPayload = {
  type: 'reaction';
  /** The message reacted to. */
  message_id: string;
  /** One emoji. */
  emoji: string;
  action: 'add' | 'remove';
};
true satisfies SameType<z.output<typeof ReactionPayloadSchema>, ReactionPayload>;

/**
 * The proof a forwarded copy carries (security issue #24, item 8): the
 * original v1.1 envelope and its content key, which the forwarder (one of its
 * recipients) disclosed. Whoever receives the copy checks the original
 * sender's signature and the key commitment and decrypts the original itself
 * (`openDisclosed`), so the attribution is the original sender's, not the
 * forwarder's word. Both are base64; `content_key` is 32 bytes.
 */
export const ForwardProofSchema = z.strictObject({
  wire_envelope: base64Schema({ minBytes: 1, maxChars: FORWARD_PROOF_MAX_CHARS }),
  content_key: base64Schema({ bytes: 32 }),
});
/** See {@link ForwardProofSchema}. */
export type ForwardProof = z.output<typeof ForwardProofSchema>;

/** The sealed payload of a forwarded copy. */
export const ForwardedPayloadSchema = z.strictObject({
  type: z.literal('forwarded'),
  original: z.strictObject({
    conversation_id: IdentifierSchema,
    message_id: IdentifierSchema,
    sender_id: IdentifierSchema,
    created_at: IsoUtcMillisSchema,
  }),
  payload: z.record(z.string(), z.unknown()),
  /** The original sender's sealed envelope and its content key; absent: the forwarder's unverified claim. */
  proof: ForwardProofSchema.optional(),
});
/** The sealed payload of a forwarded copy (`type: 'forwarded'`). */
export type ForwardedPayload = {
  type: 'forwarded';
  /** The original's ids and time (signed by its sender). */
  original: { conversation_id: string; message_id: string; sender_id: string; created_at: string };
  /** The original's payload, as it was. */
  payload: Record<string, unknown>;
  /** The original sender's sealed envelope and its content key; absent: the forwarder's unverified claim. */
  proof?: { wire_envelope: string; content_key: string } | undefined;
};
true satisfies SameType<z.output<typeof ForwardedPayloadSchema>, ForwardedPayload>;

const WireEnvelope = z.string().min(1);
const TtlMs = z.number().int().min(ARTIFACT_LIMITS.minTtlMs).max(ARTIFACT_LIMITS.maxTtlMs);
const ToolTimeoutMs = z
  .number()
  .int()
  .min(ARTIFACT_LIMITS.minToolTimeoutMs)
  .max(ARTIFACT_LIMITS.maxToolTimeoutMs);

/** Routing metadata of an artifact revision (cleartext: what the service enforces). */
const ArtifactMetaShape = {
  forwardable: z.boolean(),
  sensitivity: z.enum(ARTIFACT_SENSITIVITIES),
  ttl_ms: TtlMs.optional(),
  /** Present exactly for a `tool_request`. */
  tool_timeout_ms: ToolTimeoutMs.optional(),
  wire_envelope: WireEnvelope,
};

/** Body of the create-artifact request. */
export const CreateArtifactRequestSchema = z.strictObject({
  conversation_id: IdentifierSchema,
  artifact_id: IdentifierSchema,
  ...ArtifactMetaShape,
});
/** Body of the create-artifact request. */
export type CreateArtifactRequest = z.output<typeof CreateArtifactRequestSchema>;

/** Body of the update-artifact request. */
export const UpdateArtifactRequestSchema = z.strictObject({
  based_on_revision: z.number().int().min(1),
  ...ArtifactMetaShape,
});
/** Body of the update-artifact request. */
export type UpdateArtifactRequest = z.output<typeof UpdateArtifactRequestSchema>;

/** Body of the answer request (the human's client). */
export const AnswerArtifactRequestSchema = z.strictObject({
  revision: z.number().int().min(1),
  wire_envelope: WireEnvelope,
});
/** Body of the answer request. */
export type AnswerArtifactRequest = z.output<typeof AnswerArtifactRequestSchema>;

/** States of an artifact at the service. */
export const ARTIFACT_STATES = ['open', 'answered', 'denied', 'expired'] as const;
/** A state of an artifact at the service. */
export type ArtifactState = (typeof ARTIFACT_STATES)[number];

/** The service's view of an artifact (routing metadata only). */
export const ArtifactViewSchema = z.looseObject({
  artifact_id: IdentifierSchema,
  conversation_id: IdentifierSchema,
  revision: z.number().int().min(1),
  state: z.enum(ARTIFACT_STATES),
  forwardable: z.boolean(),
  sensitivity: z.enum(ARTIFACT_SENSITIVITIES),
  expires_at: IsoUtcMillisSchema,
  tool_timeout_ms: z.number().int().nullable(),
  message_id: IdentifierSchema,
  reason: z.enum(ARTIFACT_DENIED_REASONS).nullable(),
});
/** The service's view of an artifact. */
export type ArtifactView = z.output<typeof ArtifactViewSchema>;

/** Body of the reaction request. */
export const ReactionRequestSchema = z.strictObject({
  message_id: IdentifierSchema,
  wire_envelope: WireEnvelope,
});
/** Body of the reaction request. */
export type ReactionRequest = z.output<typeof ReactionRequestSchema>;

/** Body of the forward request: the source message and one sealed copy per target conversation. */
export const ForwardRequestSchema = z.strictObject({
  source: z.strictObject({ conversation_id: IdentifierSchema, message_id: IdentifierSchema }),
  targets: z
    .array(z.strictObject({ conversation_id: IdentifierSchema, wire_envelope: WireEnvelope }))
    .min(1)
    .refine((t) => new Set(t.map((x) => x.conversation_id)).size === t.length, {
      message: 'each target conversation at most once',
    }),
});
/** Body of the forward request. */
export type ForwardRequest = z.output<typeof ForwardRequestSchema>;

/** `artifact.expired` payload (sealed by the system sender, WebSocket only). */
export const ArtifactExpiredPayloadSchema = z.looseObject({
  artifact_id: IdentifierSchema,
  conversation_id: IdentifierSchema,
  revision: z.number().int().min(1),
});
/** `artifact.expired` payload. */
export interface ArtifactExpiredPayload {
  [field: string]: unknown;
  artifact_id: string;
  conversation_id: string;
  revision: number;
}
true satisfies SameType<z.output<typeof ArtifactExpiredPayloadSchema>, ArtifactExpiredPayload>;

/**
 * Parses an artifact's content.
 *
 * @throws {@link ValidationError} with the issues (paths and reasons, never values).
 */
export function parseArtifactContent(input: unknown): ArtifactContent {
  return parseWith(ArtifactContentSchema, input, 'artifact content');
}

/**
 * Parses the sealed payload of an artifact.
 *
 * @throws {@link ValidationError} with the issues.
 */
export function parseArtifactPayload(input: unknown): ArtifactPayload {
  return parseWith(ArtifactPayloadSchema, input, 'artifact payload');
}

/**
 * Parses a sealed answer to an artifact.
 *
 * @throws {@link ValidationError} with the issues.
 */
export function parseArtifactAnswer(input: unknown): ArtifactAnswerPayload {
  return parseWith(ArtifactAnswerPayloadSchema, input, 'artifact answer');
}

/**
 * Parses the sealed payload of a reaction.
 *
 * @throws {@link ValidationError} with the issues.
 */
export function parseReactionPayload(input: unknown): ReactionPayload {
  return parseWith(ReactionPayloadSchema, input, 'reaction payload');
}

/**
 * Parses a forward request body.
 *
 * @throws {@link ValidationError} with the issues.
 */
export function parseForwardRequest(input: unknown): ForwardRequest {
  return parseWith(ForwardRequestSchema, input, 'forward request');
}

/**
 * Checks the data of an approval against the artifact it answers: a form's
 * required fields are present and no unknown field is given.
 *
 * @returns the problems found (empty when the data fits).
 */
export function answerDataProblems(
  content: ArtifactContent,
  data: Readonly<Record<string, unknown>>,
): string[] {
  if (content.kind !== 'form') return [];
  const names = new Set(content.fields.map((f) => f.name));
  const problems = Object.keys(data)
    .filter((k) => !names.has(k))
    .map((k) => `unknown field ${k}`);
  for (const f of content.fields) {
    const v = data[f.name];
    if (v === undefined) {
      if (f.required === true) problems.push(`missing required field ${f.name}`);
      continue;
    }
    const ok =
      f.input === 'number'
        ? typeof v === 'number' && Number.isFinite(v)
        : f.input === 'boolean'
          ? typeof v === 'boolean'
          : f.input === 'choice'
            ? typeof v === 'string' && (f.options ?? []).includes(v)
            : typeof v === 'string';
    if (!ok) problems.push(`field ${f.name} is not a valid ${f.input}`);
  }
  return problems;
}
