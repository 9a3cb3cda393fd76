/**
 * Device migration against the reference server on 127.0.0.1 (real HTTP,
 * virtual server time): the old device opens a session, the new device joins
 * by code, both show the same verification string, the keys are restored on
 * the new device with the protection password and checked against the old
 * device's. MIGRATION_SESSION_EXPIRED after 10 minutes, wrong and used codes,
 * and a relay in the middle (a tampering proxy) caught by the commitment, the
 * values each device fixed, and the sealed bundle (test/security/migration.test.ts
 * stages the full relay attack).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserClient } from '../../../packages/sdk/src/client/index.js';
import { toBase64 } from '../../../packages/sdk/src/core/encoding.js';
import {
  isConfigurationError,
  isCryptoError,
  isServiceError,
  isValidationError,
} from '../../../packages/sdk/src/core/errors/index.js';
import { MIGRATION_ROUTES } from '../../../packages/sdk/src/core/protocol/service-names.js';
import { generateKeys } from '../../../packages/sdk/src/crypto/keys.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { ACCOUNT_PASSWORD, newUserClient, PROTECTION_PASSWORD, signUp } from '../../helpers/client-setup.js';
import { startTestServer } from '../../helpers/server-http.js';
import { startTamperProxy, type TamperProxy } from '../../helpers/tamper-proxy.js';

const FAST = { pollIntervalMs: 5 } as const;
const TEN_MINUTES = 10 * 60_000;

let server: ReferenceServer;
let proxy: TamperProxy;

beforeAll(async () => {
  server = await startTestServer();
  proxy = await startTamperProxy(server.url);
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

/** A second device of `email`, signed in with the account password, keys still locked. */
async function newDevice(email: string, baseUrl = server.url): Promise<UserClient> {
  const client = newUserClient(server, { baseUrl });
  await client.login({ email, accountPassword: ACCOUNT_PASSWORD, turnstileToken: 'pass' });
  return client;
}

describe('device migration: the whole flow', () => {
  it('moves the keys to a device signed in with a code; both show the same verification string', async () => {
    const { client: old, email } = await signUp(server);
    const fresh = newUserClient(server);
    await fresh.sendCode({ email, scene: 'login', turnstileToken: 'pass' });
    await fresh.loginWithCode({ email, code: server.control.latestCode(email, 'login')! });
    expect(fresh.keyFingerprint).toBeUndefined();

    const offer = await old.migration.start();
    expect(offer.code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(offer.expiresAtMs - server.clock.now()).toBe(TEN_MINUTES);
    // Typed as a person would: lower case, no hyphen, O for 0.
    const typed = offer.code.replace('-', ' ').toLowerCase().replaceAll('0', 'o');
    const [joined, shown] = await Promise.all([fresh.migration.join(typed, FAST), offer.waitForJoin(FAST)]);
    expect(joined.verification).toMatch(/^\d{3} \d{3}$/);
    expect(joined.verification).toBe(shown.verification);
    expect(joined.sessionId).toBe(offer.sessionId);

    const [, result] = await Promise.all([
      offer.complete({ extras: { theme: 'dark', pinned: ['agent-1'] } }),
      joined.receive({ protectionPassword: PROTECTION_PASSWORD, ...FAST }),
    ]);
    expect(result.keyFingerprint).toBe(old.keyFingerprint);
    expect(fresh.keyFingerprint).toBe(old.keyFingerprint);
    expect(result.extras).toEqual({ theme: 'dark', pinned: ['agent-1'] });
    // The session is over once the new device has the keys.
    expect(isServiceError(await offer.cancel().catch((e: unknown) => e), 'MIGRATION_SESSION_EXPIRED')).toBe(
      true,
    );
  });

  it('the server relays only public values and ciphertext: no private key crosses it', async () => {
    const { client: old, email } = await signUp(server);
    const seen: string[] = [];
    proxy.onRequest = (_m, _p, json) => (seen.push(JSON.stringify(json)), json);
    proxy.onResponse = (_m, _p, json) => (seen.push(JSON.stringify(json)), json);
    try {
      const fresh = await newDevice(email, proxy.url);
      const offer = await old.migration.start();
      const [joined] = await Promise.all([fresh.migration.join(offer.code, FAST), offer.waitForJoin(FAST)]);
      await Promise.all([
        offer.complete(),
        joined.receive({ protectionPassword: PROTECTION_PASSWORD, ...FAST }),
      ]);
      const text = seen.join('\n');
      expect(text).toContain('"bundle"');
      expect(text).not.toMatch(/private/i);
      expect(text).not.toContain(PROTECTION_PASSWORD);
    } finally {
      proxy.onRequest = proxy.onResponse = undefined;
    }
  });
});

describe('device migration: MIGRATION_SESSION_EXPIRED', () => {
  it('a code is refused 10 minutes after the session was opened (virtual time)', async () => {
    const { client: old, email } = await signUp(server);
    const fresh = await newDevice(email);
    const offer = await old.migration.start();
    server.advanceTime(TEN_MINUTES);
    const err = await fresh.migration.join(offer.code, FAST).catch((e: unknown) => e);
    expect(isServiceError(err, 'MIGRATION_SESSION_EXPIRED')).toBe(true);
    expect((err as { status?: number }).status).toBe(404);
    expect(
      isServiceError(await offer.waitForJoin(FAST).catch((e: unknown) => e), 'MIGRATION_SESSION_EXPIRED'),
    ).toBe(true);
  });

  it('a session that expires while the new device waits for the bundle ends the wait', async () => {
    const { client: old, email } = await signUp(server);
    const fresh = await newDevice(email);
    const offer = await old.migration.start();
    server.advanceTime(TEN_MINUTES - 1_000); // still open: joining works
    const [joined] = await Promise.all([fresh.migration.join(offer.code, FAST), offer.waitForJoin(FAST)]);
    const waiting = joined.receive({ protectionPassword: PROTECTION_PASSWORD, ...FAST });
    server.advanceTime(1_000);
    expect(isServiceError(await waiting.catch((e: unknown) => e), 'MIGRATION_SESSION_EXPIRED')).toBe(true);
    expect(isServiceError(await offer.complete().catch((e: unknown) => e), 'MIGRATION_SESSION_EXPIRED')).toBe(
      true,
    );
  });
});

describe('device migration: wrong codes and devices', () => {
  it('a wrong code, a used code and another account’s code all answer MIGRATION_SESSION_EXPIRED', async () => {
    const { client: old, email } = await signUp(server);
    const fresh = await newDevice(email);
    const offer = await old.migration.start();
    const wrong = offer.code.startsWith('Z') ? 'YYYY-YYYY' : 'ZZZZ-ZZZZ';
    expect(
      isServiceError(await fresh.migration.join(wrong).catch((e: unknown) => e), 'MIGRATION_SESSION_EXPIRED'),
    ).toBe(true);

    const stranger = await signUp(server);
    const foreign = await stranger.client.migration.start();
    expect(
      isServiceError(
        await fresh.migration.join(foreign.code).catch((e: unknown) => e),
        'MIGRATION_SESSION_EXPIRED',
      ),
    ).toBe(true);

    await Promise.all([fresh.migration.join(offer.code, FAST), offer.waitForJoin(FAST)]);
    const third = await newDevice(email);
    expect(
      isServiceError(
        await third.migration.join(offer.code).catch((e: unknown) => e),
        'MIGRATION_SESSION_EXPIRED',
      ),
    ).toBe(true);
    // A device that is not part of the session cannot read it either.
    const res = await third.rest
      .get(MIGRATION_ROUTES.getMigration.path.replace(':id', offer.sessionId))
      .catch((e: unknown) => e);
    expect(isServiceError(res, 'MIGRATION_SESSION_EXPIRED')).toBe(true);
  });

  it('refuses a malformed code before sending, and a join from the old device itself', async () => {
    const { client: old } = await signUp(server);
    const offer = await old.migration.start();
    expect(isValidationError(await old.migration.join('abc').catch((e: unknown) => e))).toBe(true);
    const self = await old.migration.join(offer.code).catch((e: unknown) => e);
    expect(isServiceError(self, 'VALIDATION_ERROR')).toBe(true);
    expect((self as { params?: Record<string, unknown> }).params).toMatchObject({ reason: 'same_device' });
  });

  it('a device without keys in memory cannot open a session; complete() waits for the join', async () => {
    const { client: old, email } = await signUp(server);
    const locked = await newDevice(email);
    expect(isConfigurationError(await locked.migration.start().catch((e: unknown) => e))).toBe(true);
    const offer = await old.migration.start();
    expect(isConfigurationError(await offer.complete().catch((e: unknown) => e))).toBe(true);
  });

  it('the device limit (5) still applies: a 6th device cannot sign in until one is removed', async () => {
    const { client: old, email } = await signUp(server);
    const others = [];
    for (let i = 0; i < 4; i++) others.push(await newDevice(email));
    const sixth = newUserClient(server);
    const refused = await sixth
      .login({ email, accountPassword: ACCOUNT_PASSWORD, turnstileToken: 'pass' })
      .catch((e: unknown) => e);
    expect(isServiceError(refused, 'DEVICE_LIMIT_EXCEEDED')).toBe(true);
    await old.revokeDevice(others[0]!.deviceId);
    await sixth.login({ email, accountPassword: ACCOUNT_PASSWORD, turnstileToken: 'pass' });
    const offer = await old.migration.start();
    const [joined] = await Promise.all([sixth.migration.join(offer.code, FAST), offer.waitForJoin(FAST)]);
    await Promise.all([
      offer.complete(),
      joined.receive({ protectionPassword: PROTECTION_PASSWORD, ...FAST }),
    ]);
    expect(sixth.keyFingerprint).toBe(old.keyFingerprint);
  });
});

describe('device migration: a relay in the middle', () => {
  it('a substituted ephemeral key is seen by the new device in the first answer: the join fails', async () => {
    const { client: old, email } = await signUp(server);
    const fresh = await newDevice(email, proxy.url);
    const attacker = toBase64(generateKeys().encryption.publicKey);
    proxy.onRequest = (method, path, json) =>
      method === 'POST' && path.endsWith('/key')
        ? { ...(json as object), ephemeral_public_key: attacker }
        : json;
    try {
      const offer = await old.migration.start();
      const [err] = await Promise.all([
        fresh.migration.join(offer.code, FAST).catch((e: unknown) => e),
        offer.waitForJoin(FAST).catch((e: unknown) => e),
      ]);
      // (test/security/migration.test.ts stages the relay that also hides the substitution.)
      expect(isCryptoError(err, 'MIGRATION_VERIFICATION_FAILED')).toBe(true);
      expect(fresh.keyFingerprint).toBeUndefined();
    } finally {
      proxy.onRequest = undefined;
    }
  });

  it('a revealed key that does not match the commitment fails the join', async () => {
    const { client: old, email } = await signUp(server);
    const fresh = await newDevice(email, proxy.url);
    const attacker = toBase64(generateKeys().encryption.publicKey);
    proxy.onResponse = (method, _path, json) => {
      const data = (json as { data?: Record<string, unknown> }).data;
      return method === 'GET' && data?.['old_ephemeral_public_key'] !== undefined
        ? { data: { ...data, old_ephemeral_public_key: attacker } }
        : json;
    };
    try {
      const offer = await old.migration.start();
      const [err] = await Promise.all([
        fresh.migration.join(offer.code, FAST).catch((e: unknown) => e),
        offer.waitForJoin(FAST),
      ]);
      expect(isCryptoError(err, 'MIGRATION_VERIFICATION_FAILED')).toBe(true);
    } finally {
      proxy.onResponse = undefined;
    }
  });

  it('a replaced key backup is caught against the old device’s public keys (KEY_BACKUP_INVALID)', async () => {
    const { client: old, email } = await signUp(server);
    // Someone with the account password and the protection password uploads other keys.
    const intruder = await newDevice(email);
    await intruder.setUpKeys(PROTECTION_PASSWORD);
    expect(intruder.keyFingerprint).not.toBe(old.keyFingerprint);

    const fresh = await newDevice(email);
    const offer = await old.migration.start();
    const [joined] = await Promise.all([fresh.migration.join(offer.code, FAST), offer.waitForJoin(FAST)]);
    await offer.complete();
    const err = await joined
      .receive({ protectionPassword: PROTECTION_PASSWORD, ...FAST })
      .catch((e: unknown) => e);
    expect(isCryptoError(err, 'KEY_BACKUP_INVALID')).toBe(true);
    expect(fresh.keyFingerprint).toBeUndefined();
  });
});
