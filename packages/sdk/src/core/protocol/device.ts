/**
 * Devices of a human account. Each access token is bound to one `device_id`
 * and one `user_id`; an account has at most 5 devices and device names are
 * unique per account.
 *
 * The service does not show the body of `GET /users/me/devices`; the device
 * record below names only the fields the interface mentions and keeps any
 * others (loose object).
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { DeviceIdSchema } from './key-backup.js';
import { parseWith } from './parse.js';
import { IdentifierSchema } from './primitives.js';
import type { SameType } from './same-type.js';

/** Upper bound on a device name, in characters (not shown by the service; our bound). */
export const DEVICE_NAME_MAX_CHARS = 64;

/** A device of the signed-in account. */
export const DeviceSchema = z.looseObject({
  /** Hardware-unique identifier, as uploaded with the key backup. */
  device_id: DeviceIdSchema,
  /** Display name, unique per account (DEVICE_NAME_TAKEN). Not shown whether it is always present. */
  name: z.string().min(1).max(DEVICE_NAME_MAX_CHARS).optional(),
  /** Owner of the device; one access token belongs to one user. */
  user_id: IdentifierSchema.optional(),
});
/** A device (wire field names). */
export type Device = {
  [field: string]: unknown;
  device_id: string;
  name?: string | undefined;
  user_id?: string | undefined;
};
true satisfies SameType<z.output<typeof DeviceSchema>, Device>;

/** The device list, as `data` of `GET /users/me/devices` (our reading: an array). */
export const DeviceListSchema = z.array(DeviceSchema);
/** A device list. */
export type DeviceList = z.output<typeof DeviceListSchema>;

/**
 * Validates a device list.
 *
 * @throws {@link ValidationError} with the issues (paths and reasons, never values).
 */
export function parseDeviceList(input: unknown): DeviceList {
  return parseWith(DeviceListSchema, input, 'device list');
}
