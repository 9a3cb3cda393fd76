/**
 * Capability manifests: what an agent declares it can do — its tools (name,
 * description, JSON Schema of the input, optional timeout) and the data
 * scopes it may ask a user for. The agent proposes a manifest, its owner
 * accepts or rejects it, and the agent learns the decision from
 * `agent.capability_changed`.
 *
 * Size rule (the spec's 128 KB hard cap, warning at 64 KB and above): the
 * size of a manifest is the number of UTF-8 bytes of its canonical JSON
 * ({@link canonicalJson}: object keys sorted, no whitespace), computed the
 * same way by the SDK (before sending) and by the reference server.
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { LIMITS } from '../limits.js';
import { GrantScopeSchema, type GrantScope } from './grants.js';
import type { SameType } from './same-type.js';
import { parseWith } from './parse.js';

/** Bounds of the manifest's fields (our choice; the spec fixes only the total size). */
export const MANIFEST_FIELD_LIMITS = Object.freeze({
  nameMaxChars: 64,
  descriptionMaxChars: 4000,
  toolsMax: 256,
  toolDescriptionMaxChars: 2000,
  toolTimeoutMaxMs: 300_000,
  dataScopesMax: 16,
  /** Deepest nesting accepted inside a tool's `input_schema`. */
  schemaMaxDepth: 32,
});

const TOOL_NAME = /^[a-z][a-z0-9_.-]{0,63}$/;
const VERSION_LABEL = /^\d{1,9}\.\d{1,9}\.\d{1,9}(?:[-+][0-9A-Za-z.-]{1,64})?$/;

/** Depth of a JSON value, or -1 when it is not plain JSON (functions, non-finite numbers, cycles…). */
function jsonDepth(value: unknown, depth: number, max: number): number {
  if (depth > max) return -1;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return depth;
  if (typeof value === 'number') return Number.isFinite(value) ? depth : -1;
  if (Array.isArray(value)) {
    let deepest = depth;
    for (const item of value) {
      const d = jsonDepth(item, depth + 1, max);
      if (d < 0) return -1;
      deepest = Math.max(deepest, d);
    }
    return deepest;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    let deepest = depth;
    for (const item of Object.values(value as Record<string, unknown>)) {
      const d = jsonDepth(item, depth + 1, max);
      if (d < 0) return -1;
      deepest = Math.max(deepest, d);
    }
    return deepest;
  }
  return -1;
}

/**
 * A tool's input: a JSON Schema object describing an object (`type: "object"`),
 * plain JSON throughout, nested at most {@link MANIFEST_FIELD_LIMITS}.schemaMaxDepth deep.
 */
export const JsonSchemaObjectSchema = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  if (value['type'] !== 'object') {
    ctx.addIssue({ code: 'custom', path: ['type'], message: 'input_schema must describe an object' });
  }
  if (jsonDepth(value, 0, MANIFEST_FIELD_LIMITS.schemaMaxDepth) < 0) {
    ctx.addIssue({ code: 'custom', message: 'input_schema must be plain JSON, not too deeply nested' });
  }
});

/** One tool of a manifest. */
export const ManifestToolSchema = z.strictObject({
  /** Lower-case name, `[a-z][a-z0-9_.-]`, at most 64 characters; unique in the manifest. */
  name: z.string().regex(TOOL_NAME, 'lower-case letters, digits, _ . -; starting with a letter'),
  /** What the tool does, for the owner's review. */
  description: z.string().min(1).max(MANIFEST_FIELD_LIMITS.toolDescriptionMaxChars),
  /** JSON Schema of the tool's input (an object). */
  input_schema: JsonSchemaObjectSchema,
  /** How long one call may run, in ms. */
  timeout_ms: z.number().int().min(1).max(MANIFEST_FIELD_LIMITS.toolTimeoutMaxMs).optional(),
});
/** One tool of a manifest (wire field names). */
export type ManifestTool = {
  /** Lower-case name, `[a-z][a-z0-9_.-]`, at most 64 characters; unique in the manifest. */
  name: string;
  /** What the tool does, for the owner's review. */
  description: string;
  /** JSON Schema of the tool's input (an object: `type: 'object'`). */
  input_schema: Record<string, unknown>;
  /** How long one call may run, in ms. */
  timeout_ms?: number | undefined;
};
true satisfies SameType<z.output<typeof ManifestToolSchema>, ManifestTool>;

/** A capability manifest (wire field names). */
export const CapabilityManifestSchema = z
  .strictObject({
    /** Display name of the agent's capability set. */
    name: z.string().min(1).max(MANIFEST_FIELD_LIMITS.nameMaxChars),
    /** What the agent does. */
    description: z.string().min(1).max(MANIFEST_FIELD_LIMITS.descriptionMaxChars),
    /** The author's version label, `MAJOR.MINOR.PATCH` with an optional `-pre`/`+build` tail. */
    version: z.string().regex(VERSION_LABEL, 'MAJOR.MINOR.PATCH'),
    /** The tools the agent offers. */
    tools: z.array(ManifestToolSchema).max(MANIFEST_FIELD_LIMITS.toolsMax),
    /** The data grant scopes the agent may ask users for (see docs/grants.md). */
    data_scopes: z.array(GrantScopeSchema).max(MANIFEST_FIELD_LIMITS.dataScopesMax),
  })
  .superRefine((m, ctx) => {
    const seen = new Set<string>();
    m.tools.forEach((t, i) => {
      if (seen.has(t.name))
        ctx.addIssue({ code: 'custom', path: ['tools', i, 'name'], message: 'duplicate tool name' });
      seen.add(t.name);
    });
    if (new Set(m.data_scopes).size !== m.data_scopes.length) {
      ctx.addIssue({ code: 'custom', path: ['data_scopes'], message: 'duplicate scope' });
    }
  });
/** A capability manifest (wire field names): what the agent offers, for its owner's review. */
export type CapabilityManifest = {
  /** Display name of the agent's capability set. */
  name: string;
  /** What the agent does. */
  description: string;
  /** The author's version label, `MAJOR.MINOR.PATCH` with an optional `-pre`/`+build` tail. */
  version: string;
  /** The tools the agent offers. */
  tools: ManifestTool[];
  /** The data grant scopes the agent may ask users for (see docs/grants.md). */
  data_scopes: GrantScope[];
};
true satisfies SameType<z.output<typeof CapabilityManifestSchema>, CapabilityManifest>;

/**
 * The canonical JSON of a JSON value: object keys sorted by UTF-16 code
 * units, arrays in order, no whitespace. `undefined` object members are
 * left out (as `JSON.stringify` does).
 *
 * @throws `TypeError` for values JSON cannot hold (functions, `BigInt`, cycles).
 */
export function canonicalJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
      return sorted;
    }
    return v;
  });
  if (text === undefined) throw new TypeError('The value has no JSON form.');
  return text;
}

/** Size of a manifest in bytes: the UTF-8 bytes of its {@link canonicalJson}. */
export function manifestSizeBytes(manifest: unknown): number {
  return new TextEncoder().encode(canonicalJson(manifest)).length;
}

/** How a manifest's size compares with the limits. */
export type ManifestSizeVerdict = 'ok' | 'warn' | 'too_large';

/** `too_large` above 128 KB, `warn` at 64 KB and above, `ok` below. */
export function manifestSizeVerdict(sizeBytes: number): ManifestSizeVerdict {
  if (sizeBytes > LIMITS.MANIFEST_MAX_BYTES) return 'too_large';
  return sizeBytes >= LIMITS.MANIFEST_WARN_BYTES ? 'warn' : 'ok';
}

/**
 * Checks a manifest's fields (not its size: see {@link manifestSizeBytes}).
 *
 * @throws {@link ValidationError} with the issues (paths and reasons, never values).
 * @example
 * ```ts
 * const manifest = parseCapabilityManifest(JSON.parse(text));
 * ```
 */
export function parseCapabilityManifest(input: unknown): CapabilityManifest {
  return parseWith(CapabilityManifestSchema, input, 'capability manifest');
}

/** The decision of the owner on a manifest change. */
export const ManifestDecisionSchema = z.enum(['accepted', 'rejected']);
/** `accepted` or `rejected`. */
export type ManifestDecision = z.output<typeof ManifestDecisionSchema>;

/** Status of one proposed manifest revision. */
export const ManifestRevisionStatusSchema = z.enum(['pending', 'accepted', 'rejected', 'superseded']);
/** Status of one proposed manifest revision. */
export type ManifestRevisionStatus = 'pending' | 'accepted' | 'rejected' | 'superseded';
true satisfies SameType<z.output<typeof ManifestRevisionStatusSchema>, ManifestRevisionStatus>;

/** One proposed manifest revision as the service shows it. */
export const ManifestRevisionSchema = z.looseObject({
  version: z.number().int().min(1),
  manifest: CapabilityManifestSchema,
  size_bytes: z.number().int().min(0),
  /** True at 64 KB and above. */
  size_warning: z.boolean(),
  status: ManifestRevisionStatusSchema,
  submitted_at: z.string(),
  decided_at: z.string().nullable(),
});
/** One proposed manifest revision. */
export type ManifestRevision = {
  [field: string]: unknown;
  version: number;
  manifest: CapabilityManifest;
  size_bytes: number;
  size_warning: boolean;
  status: ManifestRevisionStatus;
  submitted_at: string;
  decided_at: string | null;
};
true satisfies SameType<z.output<typeof ManifestRevisionSchema>, ManifestRevision>;

/** `GET /agents/:id/manifest`: the accepted revision, the pending one, and the head version. */
export const ManifestStateSchema = z.looseObject({
  agent_id: z.string().min(1),
  /** The newest version proposed (0 before the first): the value `based_on_version` must carry. */
  head_version: z.number().int().min(0),
  current: ManifestRevisionSchema.nullable(),
  pending: ManifestRevisionSchema.nullable(),
  /** The revision the owner decided on last (accepted or rejected). */
  last_decided: ManifestRevisionSchema.nullable(),
});
/** The manifest state of an agent. */
export type ManifestState = {
  [field: string]: unknown;
  agent_id: string;
  head_version: number;
  current: ManifestRevision | null;
  pending: ManifestRevision | null;
  last_decided: ManifestRevision | null;
};
true satisfies SameType<z.output<typeof ManifestStateSchema>, ManifestState>;

/** Payload of `agent.capability_changed` (sealed by `system`). */
export const CapabilityChangedPayloadSchema = z.looseObject({
  agent_id: z.string().min(1),
  version: z.number().int().min(1),
  decision: ManifestDecisionSchema,
});
/** Payload of `agent.capability_changed`. */
export type CapabilityChangedPayload = z.output<typeof CapabilityChangedPayloadSchema>;
