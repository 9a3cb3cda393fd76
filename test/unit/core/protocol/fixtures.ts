/** Valid wire records and fast-check arbitraries shared by the protocol tests. */
import fc from 'fast-check';

export const b64 = (bytes: number, fill = 7): string => Buffer.alloc(bytes, fill).toString('base64');

export const CREATED_AT = '2026-03-01T12:34:56.789Z';

export function inlineBody(): Record<string, unknown> {
  return {
    type: 'message.new',
    version: 'v1',
    wire_envelope: b64(120),
    metadata: { conversation_id: 'conv-1', sender_id: 'user-1', created_at: CREATED_AT },
  };
}

export function referencedBody(): Record<string, unknown> {
  return {
    type: 'message.new',
    version: 'v1',
    wire_envelope: null,
    ref: {
      type: 'r2',
      object_key: 'deliveries/2026/03/abc123',
      size: 2_000_000,
      content_type: 'application/octet-stream',
    },
    metadata: { conversation_id: 'conv-1', sender_id: 'user-1', created_at: CREATED_AT },
  };
}

export const DELIVERY_ID = '0195a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b';
export const AGENT_ID = '6f1c2d3e-4b5a-4968-8776-a5b4c3d2e1f0';

export function deliveredEntry(): Record<string, unknown> {
  return {
    delivery_id: DELIVERY_ID,
    agent_id: AGENT_ID,
    event_type: 'message.new',
    created_at: '2026-03-01T12:00:00.000Z',
    completed_at: '2026-03-01T12:00:00.250Z',
    attempt_count: 1,
    final_status: 'delivered',
    latency_ms: 250,
  };
}

export function fullBackup(): Record<string, unknown> {
  return {
    backup_a: b64(60, 1),
    backup_b: b64(60, 2),
    argon2_salt: b64(32, 3),
    argon2_params: { m: 65_536, t: 3, p: 1 },
    public_key: b64(32, 4),
    signing_public_key: b64(32, 5),
    device_id: 'device-9f8e7d',
  };
}

export function minimalBackup(): Record<string, unknown> {
  const { backup_a, argon2_salt, public_key, device_id } = fullBackup();
  return { backup_a, argon2_salt, public_key, device_id };
}

/** A marker unlikely to appear in any message by chance; used to check values never leak. */
export const marker = fc
  .uint8Array({ minLength: 8, maxLength: 8 })
  .map((b) => `MARK${Buffer.from(b).toString('hex')}`);

/** Random ISO instants inside years 1970–9999 with millisecond precision. */
export const isoMillis = fc
  .integer({ min: 0, max: Date.parse('9999-12-31T23:59:59.999Z') })
  .map((ms) => new Date(ms).toISOString());
