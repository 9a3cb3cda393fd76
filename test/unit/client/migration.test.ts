/**
 * Device migration parsers and crypto: the session code (typed by people),
 * the bundle JSON and the sealed-bundle framing, with fast-check properties
 * over arbitrary input (they throw ValidationError or CryptoError only).
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encodeMigrationBundle,
  MIGRATION_BUNDLE_MAX_BYTES,
  parseMigrationBundle,
  type MigrationBundle,
} from '../../../packages/sdk/src/client/migration/migration-bundle.js';
import {
  bundleKeyOf,
  commitmentOf,
  ephemeralKeyPair,
  openBundle,
  sealBundle,
  splitSealedBundle,
  transcriptOf,
  verificationOf,
  accountSecretOf,
} from '../../../packages/sdk/src/client/migration/migration-crypto.js';
import { toBase64, utf8 } from '../../../packages/sdk/src/core/encoding.js';
import { isCryptoError, isValidationError } from '../../../packages/sdk/src/core/errors/index.js';
import {
  formatMigrationCode,
  MIGRATION_CODE_ALPHABET,
  MigrationSessionSchema,
  normalizeMigrationCode,
  parseMigrationCode,
} from '../../../packages/sdk/src/core/protocol/migration.js';
import { nodeBackend } from '../../../packages/sdk/src/crypto/backend/node.js';
import { portableBackend } from '../../../packages/sdk/src/crypto/backend/portable.js';

const node = nodeBackend()!;
const code = fc.string({ unit: fc.constantFrom(...MIGRATION_CODE_ALPHABET), minLength: 8, maxLength: 8 });
const key32 = () => toBase64(node.randomBytes(32));

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('migration code', () => {
  it('formats as ABCD-EFGH and parses back, whatever the case, spacing and look-alikes', () => {
    fc.assert(
      fc.property(code, fc.boolean(), (c, lower) => {
        const shown = formatMigrationCode(c);
        expect(shown).toMatch(/^.{4}-.{4}$/);
        expect(parseMigrationCode(shown)).toBe(c);
        const typed = (lower ? shown.toLowerCase() : shown)
          .replace('-', '  ')
          .replaceAll('0', 'O')
          .replaceAll('1', 'l');
        expect(parseMigrationCode(typed)).toBe(c);
      }),
    );
  });

  it('refuses anything else with a ValidationError that does not quote the input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.anything()), (input) => {
        const normalized = normalizeMigrationCode(input);
        if (normalized !== undefined) {
          expect(normalized).toMatch(/^[0-9A-HJKMNP-TV-Z]{8}$/);
          return;
        }
        const err = thrownBy(() => parseMigrationCode(input));
        expect(isValidationError(err)).toBe(true);
        if (typeof input === 'string' && input.length > 3)
          expect((err as Error).message).not.toContain(input);
      }),
    );
    for (const bad of [
      '',
      'ABCD-EFG',
      'ABCD-EFGHJ',
      'ABCD-EFGU',
      'ABCD_EFGH',
      'x'.repeat(100),
      null,
      12345678,
    ]) {
      expect(isValidationError(thrownBy(() => parseMigrationCode(bad)))).toBe(true);
    }
  });
});

describe('migration bundle', () => {
  const bundle: MigrationBundle = {
    type: 'ams.migration.bundle',
    version: 1,
    user_id: 'user-1',
    public_key: key32(),
    signing_public_key: null,
    extras: { a: [1, 'b'] },
  };

  it('round-trips and refuses every other JSON with a ValidationError', () => {
    expect(parseMigrationBundle(encodeMigrationBundle(bundle))).toEqual(bundle);
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 256 }), fc.json().map(utf8)), (bytes) => {
        const err = thrownBy(() => parseMigrationBundle(bytes));
        expect(err === undefined || isValidationError(err)).toBe(true);
      }),
    );
    for (const bad of [
      { ...bundle, version: 2 },
      { ...bundle, public_key: 'not base64' },
      { ...bundle, public_key: toBase64(new Uint8Array(31)) },
      { ...bundle, private_key: key32() },
      { ...bundle, extras: [] },
    ]) {
      expect(isValidationError(thrownBy(() => parseMigrationBundle(utf8(JSON.stringify(bad)))))).toBe(true);
    }
  });

  it('is capped at 32 KiB on both sides', () => {
    const big = { ...bundle, extras: { pad: 'x'.repeat(MIGRATION_BUNDLE_MAX_BYTES) } };
    expect(isValidationError(thrownBy(() => encodeMigrationBundle(big)))).toBe(true);
    const bytes = utf8(JSON.stringify(big));
    expect(isValidationError(thrownBy(() => parseMigrationBundle(bytes)))).toBe(true);
  });

  it('the session view refuses non-canonical keys', () => {
    const view = {
      session_id: '0190a8e2-0000-7000-8000-000000000000',
      state: 'open',
      expires_at: 'x',
      commitment: key32(),
    };
    expect(MigrationSessionSchema.safeParse(view).success).toBe(true);
    expect(MigrationSessionSchema.safeParse({ ...view, commitment: key32().replace('=', '') }).success).toBe(
      false,
    );
    expect(MigrationSessionSchema.safeParse({ ...view, state: 'done' }).success).toBe(false);
  });
});

describe('migration crypto', () => {
  it('both sides derive the same key and verification string, on either backend', async () => {
    const old = ephemeralKeyPair(node);
    const fresh = ephemeralKeyPair(portableBackend);
    const t1 = await transcriptOf(node, 'sid', old.publicKey, fresh.publicKey);
    const t2 = await transcriptOf(portableBackend, 'sid', old.publicKey, fresh.publicKey);
    expect(t1).toEqual(t2);
    expect(await verificationOf(node, t1)).toMatch(/^\d{3} \d{3}$/);
    expect(await verificationOf(portableBackend, t2)).toBe(await verificationOf(node, t1));
    const account = ephemeralKeyPair(node); // the account's X25519 pair
    const a1 = await accountSecretOf(node, account.privateKey);
    expect(await accountSecretOf(portableBackend, account.privateKey)).toEqual(a1);
    const k1 = await bundleKeyOf(node, old, fresh.publicKey, t1, a1);
    const k2 = await bundleKeyOf(portableBackend, fresh, old.publicKey, t2, a1);
    expect(k1).toEqual(k2);
    const sealed = await sealBundle(node, k1, t1, account.publicKey, utf8('{"x":1}'));
    expect(splitSealedBundle(sealed)?.accountPublicKey).toEqual(account.publicKey);
    expect(await openBundle(portableBackend, k2, t2, sealed)).toEqual(utf8('{"x":1}'));
    // The same session without the account's private key: another key, and the bundle does not open.
    const other = await accountSecretOf(node, ephemeralKeyPair(node).privateKey);
    const k3 = await bundleKeyOf(node, fresh, old.publicKey, t1, other);
    expect(
      isCryptoError(
        await openBundle(node, k3, t1, sealed).catch((e: unknown) => e),
        'MIGRATION_VERIFICATION_FAILED',
      ),
    ).toBe(true);
    // The account key named in the clear is bound: another one there, and it does not open.
    const renamed = sealed.slice();
    renamed.set(ephemeralKeyPair(node).publicKey, 1);
    expect(
      isCryptoError(
        await openBundle(node, k1, t1, renamed).catch((e: unknown) => e),
        'MIGRATION_VERIFICATION_FAILED',
      ),
    ).toBe(true);
    // Another session id: other transcript, other verification, and the bundle does not open.
    const t3 = await transcriptOf(node, 'sid2', old.publicKey, fresh.publicKey);
    expect(await verificationOf(node, t3)).not.toBe(await verificationOf(node, t1));
    expect(
      isCryptoError(
        await openBundle(node, k1, t3, sealed).catch((e: unknown) => e),
        'MIGRATION_VERIFICATION_FAILED',
      ),
    ).toBe(true);
    expect(await commitmentOf(node, old.publicKey)).toEqual(
      await commitmentOf(portableBackend, old.publicKey),
    );
  });

  it('the string is 64 bits of SHA-256(label ‖ T) mod 10⁶, on either backend', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 32, maxLength: 32 }), async (t) => {
        const h = createHash('sha256').update('ams/migration/v2/verification').update(t).digest();
        const expected = String(h.readBigUInt64BE(0) % 1_000_000n).padStart(6, '0');
        const shown = `${expected.slice(0, 3)} ${expected.slice(3)}`;
        expect(await verificationOf(node, t)).toBe(shown);
        expect(await verificationOf(portableBackend, t)).toBe(shown);
      }),
      { numRuns: 50 },
    );
  });

  it('any malformed or flipped sealed bundle fails with MIGRATION_VERIFICATION_FAILED', async () => {
    const a = ephemeralKeyPair(node);
    const b = ephemeralKeyPair(node);
    const t = await transcriptOf(node, 's', a.publicKey, b.publicKey);
    const k = await bundleKeyOf(node, a, b.publicKey, t, node.randomBytes(32));
    const sealed = await sealBundle(node, k, t, b.publicKey, utf8('{}'));
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 64 }), fc.nat(sealed.length - 1), async (junk, at) => {
        const flipped = sealed.slice();
        flipped[at]! ^= 1;
        for (const input of [junk, flipped]) {
          const err = await openBundle(node, k, t, input).catch((e: unknown) => e);
          expect(isCryptoError(err, 'MIGRATION_VERIFICATION_FAILED')).toBe(true);
        }
      }),
      { numRuns: 50 },
    );
    expect(splitSealedBundle(new Uint8Array(60))).toBeUndefined();
    expect(splitSealedBundle(sealed.subarray(0, 60))).toBeUndefined();
    expect(splitSealedBundle(sealed.subarray(0, 61))).toBeDefined();
    expect(splitSealedBundle(Uint8Array.of(1, ...sealed.subarray(1)))).toBeUndefined(); // version 1
  });

  it('a low-order peer key yields no key (MIGRATION_VERIFICATION_FAILED)', async () => {
    const a = ephemeralKeyPair(node);
    const err = await bundleKeyOf(node, a, new Uint8Array(32), new Uint8Array(32), new Uint8Array(32)).catch(
      (e: unknown) => e,
    );
    expect(isCryptoError(err, 'MIGRATION_VERIFICATION_FAILED')).toBe(true);
  });
});
