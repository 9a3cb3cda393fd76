/**
 * Delivery log entries, as returned newest first by
 * `GET /agents/:agent_id/delivery-logs` (kept 30 days).
 *
 * `final_status` discriminates: `delivered` requires `latency_ms`, `failed`
 * requires `error_class`; for `unreachable` neither is required. Fields the
 * interface does not name are kept as-is.
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { parseWith } from './parse.js';
import { TimestampWithZoneSchema, UuidSchema, UuidV7Schema } from './primitives.js';

/** Final statuses of a delivery. */
export const DELIVERY_FINAL_STATUSES = ['delivered', 'failed', 'unreachable'] as const;
/** A final status of a delivery. */
export type DeliveryFinalStatus = (typeof DELIVERY_FINAL_STATUSES)[number];

const common = {
  /** UUID v7 of the delivery (also sent as X-Service-Delivery-Id). */
  delivery_id: UuidV7Schema,
  agent_id: UuidSchema,
  event_type: z.string().min(1).max(100),
  created_at: TimestampWithZoneSchema,
  completed_at: TimestampWithZoneSchema,
  /** Attempts made (1 to 8 under the V1 retry schedule; not capped here). */
  attempt_count: z.int().min(1),
};

const DeliveredEntrySchema = z.looseObject({
  ...common,
  final_status: z.literal('delivered'),
  latency_ms: z.int().min(0),
  error_class: z.string().optional(),
});

const FailedEntrySchema = z.looseObject({
  ...common,
  final_status: z.literal('failed'),
  /** 0 only for an event that expired in the pending queue before its first attempt. */
  attempt_count: z.int().min(0),
  error_class: z.string().min(1).max(200),
  latency_ms: z.int().min(0).optional(),
});

const UnreachableEntrySchema = z.looseObject({
  ...common,
  final_status: z.literal('unreachable'),
  latency_ms: z.int().min(0).optional(),
  error_class: z.string().optional(),
});

/** One delivery log entry. `completed_at` may not be earlier than `created_at`. */
export const DeliveryLogEntrySchema = z
  .discriminatedUnion('final_status', [DeliveredEntrySchema, FailedEntrySchema, UnreachableEntrySchema])
  .refine((e) => Date.parse(e.completed_at) >= Date.parse(e.created_at), {
    message: 'completed_at must not be earlier than created_at',
    path: ['completed_at'],
  });
/** A delivery log entry (wire field names). */
export type DeliveryLogEntry = z.output<typeof DeliveryLogEntrySchema>;

/** The list answered by `GET /agents/:agent_id/delivery-logs`, newest first. */
export const DeliveryLogListSchema = z.array(DeliveryLogEntrySchema);
/** A list of delivery log entries. */
export type DeliveryLogList = z.output<typeof DeliveryLogListSchema>;

/**
 * Validates one delivery log entry.
 *
 * @throws {@link ValidationError} with the issues (paths and reasons, never values).
 */
export function parseDeliveryLogEntry(input: unknown): DeliveryLogEntry {
  return parseWith(DeliveryLogEntrySchema, input, 'delivery log entry');
}

/**
 * Validates a delivery log list (order is not checked).
 *
 * @throws {@link ValidationError} with the issues (paths and reasons, never values).
 */
export function parseDeliveryLogList(input: unknown): DeliveryLogList {
  return parseWith(DeliveryLogListSchema, input, 'delivery log list');
}
