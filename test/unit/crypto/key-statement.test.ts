/**
 * Key succession statements: the documented test vector (docs/keys.md), the
 * signature bound to every field and to the previous key, and the wire
 * schema fuzzed (only ValidationError-style refusals, never a crash).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyStatementSchema } from '../../../packages/sdk/src/core/protocol/key-statement.js';
import {
  keyStatementBytes,
  keyStatementFromWire,
  keyStatementToWire,
  signKeyStatement,
  verifyKeyStatement,
  type KeyStatement,
} from '../../../packages/sdk/src/crypto/key-statement.js';
import { generateKeys, keyFingerprint, keysFromPrivate } from '../../../packages/sdk/src/crypto/keys.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const fill = (v: number) => new Uint8Array(32).fill(v);
const prev = keysFromPrivate(fill(1), fill(2));
const next = keysFromPrivate(fill(3), fill(4));
const fields = {
  subject: 'agent-1',
  generation: 2,
  encryption: next.encryption.publicKey,
  signing: next.signing.publicKey,
  previousKeyId: keyFingerprint(prev.encryption.publicKey),
  issuedAtMs: Date.parse('2026-03-01T12:00:00.000Z'),
};
const previous = { signing: prev.signing.publicKey, encryption: prev.encryption.publicKey };

describe('key succession statements', () => {
  it('matches the vector of docs/keys.md', () => {
    expect(hex(keyStatementBytes(fields))).toBe(
      '616d732f6b65792d73756363657373696f6e2f76310000076167656e742d3100000002' +
        '5dfedd3b6bd47f6fa28ee15d969d5bb0ea53774d488bdaf9df1c6e0124b3ef22' +
        'ca93ac1705187071d67b83c7ff0efe8108e8ec4530575d7726879333dbdabe7c' +
        '1a92f23852dc908d0000019ca9450a00',
    );
    const st = signKeyStatement(fields, prev.signing);
    expect(hex(st.signature)).toBe(
      'a142cbd0df82528d3109d125a12b507c66320832bfa8020c81eab8d5ceae1b5b' +
        '99ed0520a91f2eb85db6546f6cc66fd5813897a7fc547cb864bdec780f42e20a',
    );
    expect(keyStatementToWire(st)).toEqual({
      v: 1,
      subject: 'agent-1',
      generation: 2,
      public_key: 'Xf7dO2vUf2+ijuFdlp1bsOpTd01Ii9r53xxuASSz7yI=',
      signing_public_key: 'ypOsFwUYcHHWe4PH/w7+gQjo7EUwV113JoeTM9vavnw=',
      previous_key_id: '1a92f23852dc908d',
      issued_at: '2026-03-01T12:00:00.000Z',
      signature: 'oULL0N+CUo0xCdEloStQfGYyCDK/qAIMgeq41c6uG1uZ7QUgqR8uuF22VG9sxm/VgTiXp/xUfLhkvex4D0LiCg==',
    });
    expect(verifyKeyStatement(st, previous)).toBe(true);
    const round = keyStatementFromWire(KeyStatementSchema.parse(keyStatementToWire(st)));
    expect(verifyKeyStatement(round, previous)).toBe(true);
  });

  it('is refused when any field changes or another key signed it', () => {
    const st = signKeyStatement(fields, prev.signing);
    const other = generateKeys();
    const variants: KeyStatement[] = [
      { ...st, subject: 'agent-2' },
      { ...st, generation: 3 },
      { ...st, encryption: other.encryption.publicKey },
      { ...st, signing: other.signing.publicKey },
      { ...st, issuedAtMs: st.issuedAtMs + 1 },
      { ...st, previousKeyId: keyFingerprint(other.encryption.publicKey) },
      { ...st, signature: st.signature.map((b, i) => (i === 0 ? b ^ 1 : b)) },
    ];
    for (const v of variants) expect(verifyKeyStatement(v, previous)).toBe(false);
    // Signed by a key that is not the previous generation's (e.g. the service's own).
    const forged = signKeyStatement(fields, other.signing);
    expect(verifyKeyStatement(forged, previous)).toBe(false);
    // The right signature, checked against another previous generation.
    expect(
      verifyKeyStatement(st, { signing: other.signing.publicKey, encryption: prev.encryption.publicKey }),
    ).toBe(false);
  });

  it('refuses bad field values when building the bytes', () => {
    expect(() => keyStatementBytes({ ...fields, previousKeyId: 'XYZ' })).toThrow(RangeError);
    expect(() => keyStatementBytes({ ...fields, generation: -1 })).toThrow(RangeError);
    expect(() => keyStatementBytes({ ...fields, issuedAtMs: 1.5 })).toThrow(RangeError);
    expect(() => keyStatementBytes({ ...fields, encryption: new Uint8Array(31) })).toThrow(RangeError);
    expect(() => keyStatementBytes({ ...fields, subject: 'x'.repeat(70_000) })).toThrow(RangeError);
  });

  it('wire schema: arbitrary input is parsed or refused, never crashes; accepted ones decode', () => {
    const valid = keyStatementToWire(signKeyStatement(fields, prev.signing));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.record({
            v: fc.oneof(fc.constant(1), fc.integer()),
            subject: fc.string(),
            generation: fc.oneof(fc.integer(), fc.double()),
            public_key: fc.oneof(fc.constant(valid.public_key), fc.string()),
            signing_public_key: fc.oneof(fc.constant(valid.signing_public_key), fc.string()),
            previous_key_id: fc.oneof(fc.constant(valid.previous_key_id), fc.string()),
            issued_at: fc.oneof(
              fc.constant(valid.issued_at),
              fc.string(),
              fc.date().map((d) => d.toString()),
            ),
            signature: fc.oneof(fc.constant(valid.signature), fc.string()),
          }),
        ),
        (input) => {
          const r = KeyStatementSchema.safeParse(input);
          if (r.success) {
            const st = keyStatementFromWire(r.data);
            expect(st.encryption).toHaveLength(32);
            expect(Number.isSafeInteger(st.issuedAtMs)).toBe(true);
            expect(typeof verifyKeyStatement(st, previous)).toBe('boolean');
          }
        },
      ),
    );
    expect(KeyStatementSchema.safeParse({ ...valid, issued_at: '2026-03-01T12:00:00Z' }).success).toBe(false);
    expect(KeyStatementSchema.safeParse({ ...valid, generation: 1 }).success).toBe(false);
    expect(KeyStatementSchema.safeParse({ ...valid, extra: 1 }).success).toBe(false);
  });
});
