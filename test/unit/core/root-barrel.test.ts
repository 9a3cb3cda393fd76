import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as root from '../../../packages/sdk/src/index.js';
import * as protocol from '../../../packages/sdk/src/protocol.js';

describe('root entry barrel (src/index.ts)', () => {
  it('uses explicit named exports only', () => {
    const source = readFileSync(new URL('../../../packages/sdk/src/index.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/export \*/);
    expect(source).toMatch(/@module/);
  });

  it('exports the Agent, the UserClient, errors, guards and limits; the wire model lives in /protocol (#23)', () => {
    for (const name of [
      'Agent',
      'UserClient',
      'AmsError',
      'ServiceError',
      'RateLimitError',
      'ValidationError',
      'isServiceError',
      'isAmsError',
      'LIMITS',
    ]) {
      expect(root, name).toHaveProperty(name);
    }
    expect(Object.keys(root).length).toBeLessThanOrEqual(80);
    const wireModel = [
      'ERROR_CATALOGUE',
      'toServiceError',
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
    for (const name of wireModel) {
      expect(protocol, name).toHaveProperty(name);
      expect(Object.keys(root), name).not.toContain(name);
    }
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
