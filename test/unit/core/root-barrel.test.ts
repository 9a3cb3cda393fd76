import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as root from '../../../packages/sdk/src/index.js';

describe('root entry barrel (src/index.ts)', () => {
  it('uses explicit named exports only', () => {
    const source = readFileSync(new URL('../../../packages/sdk/src/index.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/export \*/);
    expect(source).toMatch(/@module/);
  });

  it('exports errors, guards, limits, clock and the protocol model', () => {
    const expected = [
      'AmsError',
      'ServiceError',
      'RateLimitError',
      'ValidationError',
      'isServiceError',
      'isAmsError',
      'ERROR_CATALOGUE',
      'toServiceError',
      'LIMITS',
      'WEBHOOK_RETRY_SCHEDULE_MS',
      'systemClock',
      'ManualClock',
      'ErrorObjectSchema',
      'errorBody',
      'KeyBackupRecordSchema',
      'isAgentToken',
      'parseWebhookDeliveryBody',
      'parseDeliveryLogEntry',
      'parseWsFrame',
      'WEBHOOK_EVENT_TYPES',
      'WS_ONLY_EVENT_TYPES',
      'MessagePayloadSchema',
    ];
    for (const name of expected) expect(root, name).toHaveProperty(name);
  });

  it('exports nothing undefined and keeps internal helpers out', () => {
    for (const [name, value] of Object.entries(root)) expect(value, name).toBeDefined();
    for (const internal of [
      'parseWith',
      'validationError',
      'base64Schema',
      'generateAgentToken',
      'toBase64',
    ]) {
      expect(Object.keys(root)).not.toContain(internal);
    }
  });
});
