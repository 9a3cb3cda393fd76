import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromBase64, toBase64 } from '../../../../packages/sdk/src/core/encoding.js';
import { isCryptoError } from '../../../../packages/sdk/src/core/errors/index.js';
import {
  isFullKeyBackup,
  parseKeyBackupRecord,
  type KeyBackupFull,
} from '../../../../packages/sdk/src/core/protocol/key-backup.js';
import {
  ARGON2_PARAMS_MAX,
  BACKUP_BLOB_BYTES,
  checkKeyBackupRecord,
  createKeyBackup,
  createMinimalKeyBackup,
} from '../../../../packages/sdk/src/crypto/backup/index.js';
import { generateKeys } from '../../../../packages/sdk/src/crypto/keys.js';
import { PASSWORD, cheap } from './helpers.js';

const record: KeyBackupFull = await createKeyBackup(generateKeys(), PASSWORD, {
  deviceId: 'dev-1',
  ...cheap,
});
const minimal = await createMinimalKeyBackup(generateKeys().encryption, PASSWORD, {
  deviceId: 'dev-1',
  ...cheap,
});

function invalidCode(input: unknown): string | undefined {
  try {
    checkKeyBackupRecord(input);
    return undefined;
  } catch (err) {
    if (!isCryptoError(err)) throw err;
    return err.code;
  }
}

function messageOf(input: unknown): string {
  try {
    checkKeyBackupRecord(input);
  } catch (err) {
    expect(isCryptoError(err, 'KEY_BACKUP_INVALID')).toBe(true);
    return (err as Error).message;
  }
  throw new Error('expected a rejection');
}

describe('checkKeyBackupRecord', () => {
  it('accepts both forms and tells them apart', () => {
    const full = checkKeyBackupRecord(record);
    expect(isFullKeyBackup(full)).toBe(true);
    expect(full).toEqual(record);
    const min = checkKeyBackupRecord(minimal);
    expect(isFullKeyBackup(min)).toBe(false);
    expect(min).toEqual(minimal);
  });

  it('creates records that the core wire model accepts as uploads (one model)', async () => {
    expect(parseKeyBackupRecord(record)).toEqual(record);
    const min = await createMinimalKeyBackup(generateKeys().encryption, PASSWORD, {
      deviceId: 'd',
      ...cheap,
    });
    expect(parseKeyBackupRecord(min)).toEqual(min);
    expect(checkKeyBackupRecord(min)).toEqual(min);
  });

  it('drops unknown top-level fields that the strict upload model refuses', () => {
    const readBack = { ...record, created_at: 'x', uploaded_at: '2026-01-01T00:00:00.000Z' };
    expect(() => parseKeyBackupRecord(readBack)).toThrow();
    const checked = checkKeyBackupRecord(readBack);
    expect(checked).toEqual(record);
    expect(Object.keys(checked)).not.toContain('uploaded_at');
    expect(checkKeyBackupRecord({ ...minimal, extra: { nested: true } })).toEqual(minimal);
    const nullProto: Record<string, unknown> = Object.assign(Object.create(null) as object, record);
    expect(checkKeyBackupRecord(nullProto)).toEqual(record);
  });

  it('does not pick inherited fields', () => {
    const inherited = Object.assign(Object.create({ backup_b: record.backup_b }) as object, minimal);
    expect(checkKeyBackupRecord(inherited)).toEqual(minimal);
  });

  it('refuses unknown members inside argon2_params (they could change the derivation)', () => {
    const withVersion = { ...record, argon2_params: { ...record.argon2_params, v: 19 } };
    expect(messageOf(withVersion)).toContain('argon2_params');
  });

  it('refuses device ids with C1 control characters (the core rule, stricter than C0 only)', () => {
    expect(invalidCode({ ...record, device_id: 'dev\u0085id' })).toBe('KEY_BACKUP_INVALID');
    expect(invalidCode({ ...record, device_id: 'dev\u009fid' })).toBe('KEY_BACKUP_INVALID');
    expect(invalidCode({ ...record, device_id: 'x'.repeat(256) })).toBeUndefined();
  });

  it('names each component above the ceiling', () => {
    const over = { m: ARGON2_PARAMS_MAX.m + 8, t: ARGON2_PARAMS_MAX.t + 1, p: ARGON2_PARAMS_MAX.p };
    const message = messageOf({ ...record, argon2_params: over });
    expect(message).toContain('argon2_params.m');
    expect(message).toContain('argon2_params.t');
    expect(message).not.toContain('argon2_params.p');
  });

  it('turns a throwing getter or a non-object into KEY_BACKUP_INVALID', () => {
    const hostile = new Proxy(
      {},
      {
        getOwnPropertyDescriptor() {
          throw new Error(`leak ${PASSWORD}`);
        },
      },
    );
    expect(messageOf(hostile)).not.toContain(PASSWORD);
    const getter = Object.defineProperty({ ...record }, 'argon2_salt', {
      enumerable: true,
      get() {
        throw new Error(`leak ${PASSWORD}`);
      },
    });
    expect(messageOf(getter)).not.toContain(PASSWORD);
    expect(messageOf([record])).toContain('(record)');
  });

  it('rejects a record with some but not all full-form fields', () => {
    expect(invalidCode({ ...minimal, backup_b: record.backup_b })).toBe('KEY_BACKUP_INVALID');
    expect(invalidCode({ ...minimal, argon2_params: record.argon2_params })).toBe('KEY_BACKUP_INVALID');
    expect(invalidCode({ ...record, signing_public_key: undefined })).toBe('KEY_BACKUP_INVALID');
  });

  it('rejects each field that is missing, of the wrong type or of the wrong size', () => {
    const salt31 = toBase64(new Uint8Array(31));
    const cases: Record<string, unknown>[] = [
      { ...record, argon2_salt: salt31 },
      { ...record, argon2_salt: toBase64(new Uint8Array(33)) },
      { ...record, public_key: salt31 },
      { ...record, signing_public_key: 42 },
      { ...record, backup_a: toBase64(new Uint8Array(BACKUP_BLOB_BYTES)) },
      { ...record, backup_a: record.backup_a.replace(/=*$/, '') + ' ' },
      { ...record, device_id: '' },
      { ...record, device_id: 'a\nb' },
      { ...record, device_id: 'x'.repeat(257) },
      { ...record, argon2_params: { m: 65_536, t: 3 } },
      { ...record, argon2_params: { m: 1.5, t: 3, p: 1 } },
      { ...record, argon2_params: { m: 4 * 1024 * 1024, t: 3, p: 1 } },
      { ...record, argon2_params: { m: 65_536, t: 1000, p: 1 } },
    ];
    for (const key of Object.keys(record)) {
      const copy: Record<string, unknown> = { ...record };
      delete copy[key];
      cases.push(copy);
    }
    for (const c of cases) expect(invalidCode(c)).toBe('KEY_BACKUP_INVALID');
    for (const c of [null, 1, 'x', [], undefined]) expect(invalidCode(c)).toBe('KEY_BACKUP_INVALID');
  });

  it('detects backup_a and backup_b swapped without deriving anything', () => {
    const swapped = { ...record, backup_a: record.backup_b, backup_b: record.backup_a };
    expect(invalidCode(swapped)).toBe('KEY_BACKUP_INVALID');
  });

  it('names fields but never their values in the message', () => {
    const bad = { ...record, public_key: record.backup_a };
    try {
      checkKeyBackupRecord(bad);
      expect.unreachable();
    } catch (err) {
      expect(isCryptoError(err, 'KEY_BACKUP_INVALID')).toBe(true);
      expect((err as Error).message).toContain('public_key');
      expect((err as Error).message).not.toContain(record.backup_a);
    }
  });

  it('arbitrary inputs only ever give KEY_BACKUP_INVALID (or a valid record)', () => {
    const b64 = (n: number) => fc.uint8Array({ minLength: n, maxLength: n }).map(toBase64);
    const field = fc.oneof(fc.anything(), b64(32), b64(31), b64(BACKUP_BLOB_BYTES), fc.string());
    const recordLike = fc.record(
      {
        backup_a: fc.oneof(field, fc.constant(record.backup_a)),
        backup_b: fc.oneof(field, fc.constant(record.backup_b)),
        argon2_salt: field,
        argon2_params: fc.oneof(
          fc.anything(),
          fc.record({ m: fc.integer(), t: fc.integer(), p: fc.integer() }, { requiredKeys: [] }),
        ),
        public_key: field,
        signing_public_key: field,
        device_id: fc.oneof(fc.string(), fc.anything()),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.anything(), recordLike), (input) => {
        const code = invalidCode(input);
        expect(code === undefined || code === 'KEY_BACKUP_INVALID').toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('any single-byte change in a sealed field header is caught by shape', () => {
    const blob = fromBase64(record.backup_a)!;
    for (const index of [0, 1]) {
      const changed = blob.slice();
      changed[index] = changed[index]! ^ 0x80;
      expect(invalidCode({ ...record, backup_a: toBase64(changed) })).toBe('KEY_BACKUP_INVALID');
    }
  });
});
