import { describe, expect, it } from 'vitest';
import {
  LIMITS,
  WEBHOOK_MAX_FAILURES,
  WEBHOOK_RETRY_SCHEDULE_MS,
} from '../../../packages/sdk/src/core/limits.js';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const D = 24 * H;
const MB = 1024 * 1024;
const KB = 1024;

// The service interface's Limits table, figure by figure, as copied from the spec.
const SPEC: Readonly<Record<keyof typeof LIMITS, number>> = {
  ACCESS_TOKEN_TTL_MS: 300 * S, // Access token lifetime: 300 s
  REFRESH_TOKEN_TTL_MS: 30 * D, // Refresh token lifetime: 30 days (Max-Age=2592000)
  LOGIN_MAX_FAILURES: 5, // Password login: 5 failures …
  LOGIN_LOCK_MS: 15 * MIN, // … then 15 minutes locked
  ACCOUNT_PASSWORD_MIN_CHARS: 8, // account_password: at least 8 characters
  DISPLAY_NAME_MIN_CHARS: 2, // display_name: 2 …
  DISPLAY_NAME_MAX_CHARS: 24, // … to 24 characters
  WS_AUTH_DEADLINE_MS: 5 * S, // WebSocket auth frame: within 5 s of upgrade
  TOKEN_REGENERATIONS_PER_WINDOW: 5, // Agent token regeneration: 5 …
  TOKEN_REGENERATION_WINDOW_MS: 24 * H, // … per 24 h
  TOKEN_GRACE_MS: 7 * D, // grace period 7 days in normal mode
  WEBHOOK_TIMESTAMP_TOLERANCE_MS: 300 * S, // Webhook timestamp tolerance: 300 s
  WEBHOOK_DEDUP_WINDOW_MS: 24 * H, // delivery_id de-duplication window: 24 h
  WEBHOOK_RESPONSE_TIMEOUT_MS: 10 * S, // Webhook response timeout: 10 s
  WEBHOOK_BODY_MAX_BYTES: 1 * MB, // Webhook body: 1 MB hard cap
  WEBHOOK_SECRET_MIN_BYTES: 32, // Webhook secret: at least 32 bytes
  PENDING_QUEUE_TTL_MS: 24 * H, // Pending queue of unreachable agent: 24 h
  DELIVERY_LOG_RETENTION_MS: 30 * D, // Delivery log retention: 30 days
  OBJECT_FETCHES_PER_SECOND: 5, // Object fetch: 5 requests per second per agent
  MESSAGES_PER_SECOND: 5, // Messages sent: 5 requests per second per agent
  FILE_UPLOADS_PER_SECOND: 5, // File uploads: 5 requests per second per agent …
  FILE_MAX_BYTES: 100 * MB, // … 100 MB per file
  MANIFEST_MAX_BYTES: 128 * KB, // Capability manifest: 128 KB hard cap
  MANIFEST_WARN_BYTES: 64 * KB, // warning raised at 64 KB and above
  MANIFEST_UPDATES_PER_WINDOW: 1, // 1 update …
  MANIFEST_UPDATE_WINDOW_MS: 1 * MIN, // … per minute per agent
  AGENTS_PER_USER: 50, // Agents per user: 50 by default
  DEVICES_PER_ACCOUNT: 5, // Devices per account: 5
  FORWARD_TARGETS_MAX: 10, // Forward targets: 10
  GROUP_KEY_ROTATIONS_PER_WINDOW: 6, // Group key rotation: 6 …
  GROUP_KEY_ROTATION_WINDOW_MS: 1 * H, // … per hour per conversation
  DEVICE_AUTH_TIMEOUT_MS: 60 * S, // Device authorisation: 60 s
  STREAM_MAX_MS: 5 * MIN, // Streaming: 5 minutes total …
  STREAM_IDLE_MAX_MS: 30 * S, // … 30 s without a delta
};

describe('LIMITS', () => {
  it('matches every figure of the spec Limits table', () => {
    for (const [name, value] of Object.entries(SPEC)) {
      expect(LIMITS[name as keyof typeof LIMITS], name).toBe(value);
    }
  });

  it('has no constant that the spec table does not back', () => {
    expect(Object.keys(LIMITS).sort()).toEqual(Object.keys(SPEC).sort());
  });

  it('is frozen', () => {
    expect(Object.isFrozen(LIMITS)).toBe(true);
    expect(() => {
      (LIMITS as { ACCESS_TOKEN_TTL_MS: number }).ACCESS_TOKEN_TTL_MS = 1;
    }).toThrow(TypeError);
  });

  it('agrees with the refresh cookie Max-Age of the spec (2592000 s)', () => {
    expect(LIMITS.REFRESH_TOKEN_TTL_MS / 1000).toBe(2_592_000);
  });
});

describe('webhook retry schedule', () => {
  it('is immediately, 30 s, 2 min, 8 min, 32 min, 2 h, 6 h; unreachable at the 8th failure', () => {
    expect(WEBHOOK_RETRY_SCHEDULE_MS).toEqual([0, 30 * S, 2 * MIN, 8 * MIN, 32 * MIN, 2 * H, 6 * H]);
    expect(WEBHOOK_MAX_FAILURES).toBe(8);
    expect(WEBHOOK_RETRY_SCHEDULE_MS).toHaveLength(WEBHOOK_MAX_FAILURES - 1);
    expect(Object.isFrozen(WEBHOOK_RETRY_SCHEDULE_MS)).toBe(true);
  });
});
