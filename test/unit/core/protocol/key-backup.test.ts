import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../packages/sdk/src/core/errors/index.js';
import {
  isFullKeyBackup,
  KeyBackupRecordSchema,
  parseKeyBackupRecord,
} from '../../../../packages/sdk/src/core/protocol/index.js';
import { b64, fullBackup, minimalBackup } from './fixtures.js';

function issuesOf(input: unknown): string[] {
  try {
    parseKeyBackupRecord(input);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).issues.map((i) => i.path.join('.'));
  }
  return [];
}

describe('parseKeyBackupRecord', () => {
  it('accepts the full form and the minimal form', () => {
    const full = parseKeyBackupRecord(fullBackup());
    expect(isFullKeyBackup(full)).toBe(true);
    const minimal = parseKeyBackupRecord(minimalBackup());
    expect(isFullKeyBackup(minimal)).toBe(false);
    expect(KeyBackupRecordSchema.safeParse(fullBackup()).success).toBe(true);
    expect(KeyBackupRecordSchema.safeParse(minimalBackup()).success).toBe(true);
  });

  it('reports the missing fields of a half-full upload', () => {
    const { signing_public_key: _s, argon2_params: _p, ...half } = fullBackup();
    expect(issuesOf(half).sort()).toEqual(['argon2_params', 'signing_public_key']);
  });

  it.each([
    ['salt of 31 bytes', { argon2_salt: b64(31) }, 'argon2_salt'],
    ['salt of 33 bytes', { argon2_salt: b64(33) }, 'argon2_salt'],
    ['public key of 31 bytes', { public_key: b64(31) }, 'public_key'],
    ['signing key of 64 bytes', { signing_public_key: b64(64) }, 'signing_public_key'],
    ['url-safe base64', { backup_a: '-_-_' }, 'backup_a'],
    ['unpadded base64', { backup_b: 'QUJDRA' }, 'backup_b'],
    ['empty backup', { backup_a: '' }, 'backup_a'],
    ['fractional m', { argon2_params: { m: 65536.5, t: 3, p: 1 } }, 'argon2_params.m'],
    ['t = 0', { argon2_params: { m: 65536, t: 0, p: 1 } }, 'argon2_params.t'],
    ['p = 0', { argon2_params: { m: 65536, t: 3, p: 0 } }, 'argon2_params.p'],
    ['m < 8p', { argon2_params: { m: 16, t: 3, p: 4 } }, 'argon2_params.m'],
    ['huge m', { argon2_params: { m: 2 ** 31, t: 3, p: 1 } }, 'argon2_params.m'],
    ['string params', { argon2_params: { m: '65536', t: 3, p: 1 } }, 'argon2_params.m'],
    ['extra param', { argon2_params: { m: 65536, t: 3, p: 1, v: 19 } }, 'argon2_params'],
    ['empty device id', { device_id: '' }, 'device_id'],
    ['device id with a newline', { device_id: 'dev\n1' }, 'device_id'],
    ['device id with a C1 control', { device_id: 'dev\u00851' }, 'device_id'],
    ['device id of 257 characters', { device_id: 'd'.repeat(257) }, 'device_id'],
    ['salt longer than 32 bytes can be', { argon2_salt: 'A'.repeat(10_000) }, 'argon2_salt'],
    ['public key longer than 32 bytes can be', { public_key: `${b64(32)}AAAA` }, 'public_key'],
    ['backup over 4096 characters', { backup_a: 'AAAA'.repeat(1025) }, 'backup_a'],
    ['unknown field', { protection_password: 'never sent' }, ''],
  ])('rejects %s', (_name, patch, path) => {
    expect(issuesOf({ ...fullBackup(), ...patch })).toContain(path);
  });

  it('stops at the length of an oversize fixed-size field, without decoding it', () => {
    const issues = (() => {
      try {
        parseKeyBackupRecord({ ...fullBackup(), argon2_salt: 'A'.repeat(100_000) });
      } catch (err) {
        return (err as ValidationError).issues;
      }
      return [];
    })();
    expect(issues.filter((i) => i.path.join('.') === 'argon2_salt')).toHaveLength(1);
  });

  it('never echoes the protection password or key material', () => {
    try {
      parseKeyBackupRecord({ ...minimalBackup(), protection_password: 'correct horse battery staple' });
      expect.unreachable();
    } catch (err) {
      expect(JSON.stringify((err as ValidationError).issues)).not.toContain('correct horse');
      expect((err as ValidationError).message).not.toContain('correct horse');
    }
  });

  it('accepts any well-formed record (property)', () => {
    const key32 = fc
      .uint8Array({ minLength: 32, maxLength: 32 })
      .map((b) => Buffer.from(b).toString('base64'));
    const blob = fc
      .uint8Array({ minLength: 1, maxLength: 200 })
      .map((b) => Buffer.from(b).toString('base64'));
    const params = fc.record({
      m: fc.integer({ min: 512, max: 4_194_304 }),
      t: fc.integer({ min: 1, max: 100 }),
      p: fc.integer({ min: 1, max: 64 }),
    });
    fc.assert(
      fc.property(
        blob,
        blob,
        key32,
        key32,
        key32,
        params,
        fc.string({ minLength: 1, maxLength: 50, unit: 'grapheme-ascii' }),
        (a, b, salt, pk, spk, p, dev) => {
          const record = {
            backup_a: a,
            backup_b: b,
            argon2_salt: salt,
            argon2_params: p,
            public_key: pk,
            signing_public_key: spk,
            device_id: dev,
          };
          expect(parseKeyBackupRecord(record)).toEqual(record);
          const { backup_b: _b, argon2_params: _p, signing_public_key: _s, ...minimal } = record;
          expect(parseKeyBackupRecord(minimal)).toEqual(minimal);
        },
      ),
    );
  });
});
