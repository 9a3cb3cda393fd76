import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../packages/sdk/src/core/errors/index.js';
import { DeviceSchema, parseDeviceList } from '../../../../packages/sdk/src/core/protocol/index.js';

describe('devices', () => {
  it('parses a device list, keeping unknown fields', () => {
    const list = parseDeviceList([
      { device_id: 'dev-1', name: 'Laptop', user_id: 'u1', last_seen: 'x' },
      { device_id: 'dev-2' },
    ]);
    expect(list).toHaveLength(2);
    expect(list[0]?.name).toBe('Laptop');
    expect((list[0] as Record<string, unknown>)['last_seen']).toBe('x');
  });

  it('rejects a device without id, an empty name, and a non-array list', () => {
    expect(DeviceSchema.safeParse({ name: 'x' }).success).toBe(false);
    expect(DeviceSchema.safeParse({ device_id: 'd', name: '' }).success).toBe(false);
    expect(DeviceSchema.safeParse({ device_id: 'd', name: 'n'.repeat(65) }).success).toBe(false);
    expect(() => parseDeviceList({ device_id: 'd' })).toThrow(ValidationError);
  });
});
