/**
 * Device migration against a hostile relay (issue #24, item 3). The attack
 * of the issue: the relay substitutes its own ephemeral keys on both sides,
 * holds the new device's join answer until the old device has revealed its
 * key, then grinds the session id it shows the new device so that both
 * screens show the same six digits, and finally reads and rewrites the
 * sealed bundle. With commit-then-reveal on both sides the relay must fix
 * everything it shows a device before it learns the key that device adds to
 * the string: grinding has nothing left to act on (a ground value is a
 * change the device refuses), retries and 429s carry the same keys, and the
 * bundle needs the account's private key, so even a relay that won the
 * comparison could neither read nor rewrite it.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserClient } from '../../packages/sdk/src/client/index.js';
import { fromBase64, toBase64, utf8 } from '../../packages/sdk/src/core/encoding.js';
import { isCryptoError, isServiceError } from '../../packages/sdk/src/core/errors/index.js';
import { nodeBackend } from '../../packages/sdk/src/crypto/backend/node.js';
import {
  bundleKeyOf,
  ephemeralKeyPair,
  openBundle,
  sealBundle,
  transcriptOf,
} from '../../packages/sdk/src/client/migration/migration-crypto.js';
import { MIGRATION_ROUTES, routePath } from '../../packages/sdk/src/core/protocol/service-names.js';
import type { ReferenceServer } from '../../packages/dev/src/testing/index.js';
import { ACCOUNT_PASSWORD, newUserClient, PROTECTION_PASSWORD, signUp } from '../helpers/client-setup.js';
import { answer, startHostileRelay, type HostileRelay } from '../helpers/hostile-relay.js';
import { startTestServer } from '../helpers/server-http.js';

const FAST = { pollIntervalMs: 5 } as const;
const node = nodeBackend()!;

let server: ReferenceServer;
let relay: HostileRelay;

beforeAll(async () => {
  server = await startTestServer();
  relay = await startHostileRelay(server.url);
});
afterAll(async () => {
  await relay.close();
  await server.close();
});

/** The old device (signed up, keys unlocked) and a new device of the same account, both through the relay. */
async function twoDevices(): Promise<{ old: UserClient; fresh: UserClient; userId: string }> {
  const { client: old, email, userId } = await signUp(server, newUserClient(server, { baseUrl: relay.url }));
  // The relay holds answers while it grinds: a patient client (the SDK would also retry a 429).
  const fresh = newUserClient(server, { baseUrl: relay.url, timeoutMs: 120_000 });
  await fresh.login({ email, accountPassword: ACCOUNT_PASSWORD, turnstileToken: 'pass' });
  return { old, fresh, userId };
}

const TRANSCRIPT = 'ams/migration/v2/transcript';
const VERIFICATION = 'ams/migration/v2/verification';
const COMMIT = 'ams/migration/v2/commit';

/** The verification digits of (session id, old key, new key), as the relay computes them. */
function digits(sessionId: string, oldKey: Uint8Array, newKey: Uint8Array): number {
  const t = createHash('sha256')
    .update(TRANSCRIPT)
    .update(sessionId)
    .update(Uint8Array.of(0))
    .update(oldKey)
    .update(newKey)
    .digest();
  return Number(createHash('sha256').update(VERIFICATION).update(t).digest().readBigUInt64BE(0) % 1_000_000n);
}

const commitmentOf = (key: Uint8Array): string =>
  createHash('sha256').update(COMMIT).update(key).digest('base64');

/** The relay's grinding loop, in a worker so the relay keeps answering while it runs. */
const GRIND = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { target, prefix, oldKey, newKey, transcriptLabel, verificationLabel } = workerData;
const cap = 4000000; // P(no match in 4·10⁶ tries) = e⁻⁴ ≈ 2 %: then the relay switches to its last try anyway
let id = '';
let found = false;
let i = 0;
while (!found && i < cap) {
  id = prefix + i.toString(16).padStart(12, '0');
  i++;
  const t = createHash('sha256').update(transcriptLabel).update(id).update(Uint8Array.of(0)).update(oldKey).update(newKey).digest();
  const h = createHash('sha256').update(verificationLabel).update(t).digest();
  found = Number(h.readBigUInt64BE(0) % 1000000n) === target;
}
parentPort.postMessage({ id, tries: i, found });`;

/** Grinds a session id (UUID form) for which (id, oldKey, newKey) shows `target`: about 10⁶ SHA-256 pairs. */
function grindSessionId(
  target: number,
  oldKey: Uint8Array,
  newKey: Uint8Array,
): Promise<{ id: string; tries: number; found: boolean }> {
  const hex = (n: number): string => randomBytes(n).toString('hex');
  const prefix = `${hex(4)}-${hex(2)}-4${hex(2).slice(1)}-8${hex(2).slice(1)}-`;
  const worker = new Worker(GRIND, {
    eval: true,
    workerData: {
      target,
      prefix,
      oldKey,
      newKey,
      transcriptLabel: TRANSCRIPT,
      verificationLabel: VERIFICATION,
    },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { id: string; tries: number; found: boolean }) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

const dataOf = (json: unknown): Record<string, unknown> =>
  ((json as { data?: Record<string, unknown> }).data ?? {}) as Record<string, unknown>;

interface Mitm {
  /** The relay's key shown to the new device as the old device's. */
  m2?: Uint8Array;
  /** What the old device shows (relay's key M1 as the new device's). */
  shownOnOld?: number;
  /** The relay's knowledge when it had to release the join answer (fix what the new device sees). */
  seenAtRelease?: string;
  /** The new device's key, once the new device sent it (after the release). */
  newKey?: Uint8Array;
  /** The ground session id and how many tries it took. */
  ground?: { id: string; tries: number; found: boolean };
  /** Plaintext the relay got out of the old device's bundle (none expected). */
  relayRead?: unknown;
}

/**
 * Installs the relay: M1 shown to the old device as the new key
 * (the relay posts it with the new device's token, which it sees), M2 shown
 * to the new device as the old key, the join answer held until the old
 * device revealed, a session id of the relay's choosing shown to the new
 * device; with `grind`, the relay grinds a session id that makes the new
 * device's string equal the old one's and switches to it.
 */
function installMitm(fresh: UserClient, userId: string, grind: boolean): Mitm {
  const m1 = ephemeralKeyPair(node);
  const m2 = ephemeralKeyPair(node);
  const state: Mitm = { m2: m2.publicKey };
  let realId = '';
  let fakeId = '';
  let shownId = '';
  let oldKey: Uint8Array | undefined;
  let forgedBundle: string | undefined;
  let revealed: () => void = () => undefined;
  const oldRevealed = new Promise<void>((r) => (revealed = r));
  const view = (): Record<string, unknown> => ({
    session_id: shownId,
    state: forgedBundle === undefined ? (state.newKey === undefined ? 'joined' : 'revealed') : 'sealed',
    expires_at: new Date(server.clock.now() + 60_000).toISOString(),
    commitment: commitmentOf(m2.publicKey),
    ...(state.newKey === undefined ? {} : { new_ephemeral_public_key: toBase64(state.newKey) }),
    ...(state.newKey === undefined ? {} : { old_ephemeral_public_key: toBase64(m2.publicKey) }),
    ...(forgedBundle === undefined ? {} : { bundle: forgedBundle }),
  });

  relay.onRequest = async (method, path, json) => {
    const body = json as Record<string, unknown>;
    if (method === 'POST' && path.endsWith('/reveal'))
      oldKey = fromBase64(body['ephemeral_public_key'] as string);
    if (method === 'POST' && fakeId !== '' && path === `/migrations/${fakeId}/key`) {
      state.newKey = fromBase64(body['ephemeral_public_key'] as string)!;
      if (grind) {
        // Only now can the relay grind: it knows every input of the new device's string.
        state.ground = await grindSessionId(state.shownOnOld!, m2.publicKey, state.newKey!);
        shownId = state.ground.id;
      }
    }
    if (method === 'POST' && path.endsWith('/bundle') && path.includes(realId)) {
      // The old device sealed to M1: the relay holds M1's private key, not the account's.
      const sealed = fromBase64(body['bundle'] as string)!;
      const tOld = await transcriptOf(node, realId, oldKey!, m1.publicKey);
      for (const guess of [new Uint8Array(32), node.randomBytes(32)]) {
        const key = await bundleKeyOf(node, m1, oldKey!, tOld, guess);
        state.relayRead = await openBundle(node, key, tOld, sealed).catch(() => state.relayRead);
      }
      // It forges one for the new device instead, under the key it shares with it, naming the account's key.
      const accountKey = sealed.subarray(1, 33);
      const forged = utf8(
        JSON.stringify({
          type: 'ams.migration.bundle',
          version: 1,
          user_id: userId,
          public_key: toBase64(accountKey),
          signing_public_key: null,
          extras: { pinned: ['relay-agent'] },
        }),
      );
      const tNew = await transcriptOf(node, fakeId, m2.publicKey, state.newKey!);
      const kNew = await bundleKeyOf(node, m2, state.newKey!, tNew, new Uint8Array(32));
      forgedBundle = toBase64(await sealBundle(node, kNew, tNew, accountKey, forged));
    }
    return json;
  };
  relay.onResponse = async (method, path, json) => {
    if (method === 'POST' && path === MIGRATION_ROUTES.joinMigration.path) {
      realId = dataOf(json)['session_id'] as string;
      // M1 goes to the service as the new device's key, so the old device reveals.
      await fresh.rest.post(routePath(MIGRATION_ROUTES.submitMigrationKey, { id: realId }), {
        ephemeral_public_key: toBase64(m1.publicKey),
      });
      await oldRevealed; // hold the answer until the old device revealed
      state.shownOnOld = digits(realId, oldKey!, m1.publicKey);
      state.seenAtRelease = relay.seen.map((s) => s.text).join('\n');
      fakeId = shownId = randomUUID();
      return { data: { ...view(), state: 'joined' } };
    }
    if (method === 'POST' && path.endsWith('/reveal')) revealed();
    if (fakeId !== '' && path.includes(fakeId)) {
      if (method === 'DELETE') return answer(200, { data: { session_id: fakeId, closed: true } });
      return answer(200, { data: view() });
    }
    return json;
  };
  return state;
}

describe('migration through a hostile relay: the grinding attack of #24', () => {
  it(
    'the relay holds the join answer, then grinds a session id: the new device refuses the switch',
    { timeout: 180_000 },
    async () => {
      const { old, fresh, userId } = await twoDevices();
      const mitm = installMitm(fresh, userId, true);
      try {
        const offer = await old.migration.start();
        const [joined, shown] = await Promise.all([
          fresh.migration.join(offer.code, FAST).catch((e: unknown) => e),
          offer.waitForJoin(FAST),
        ]);
        // The relay ground a session id after it knew every input of the new device's string
        // (it found one that shows the old device's digits in ~98 % of runs) and switched to it ...
        expect(mitm.ground!.tries).toBeGreaterThan(0);
        if (mitm.ground!.found) expect(digits(mitm.ground!.id, mitm.m2!, mitm.newKey!)).toBe(mitm.shownOnOld);
        // ... but it came after the new device fixed the session id: that change is refused.
        expect(isCryptoError(joined, 'MIGRATION_VERIFICATION_FAILED')).toBe(true);
        expect(shown.verification).toMatch(/^\d{3} \d{3}$/);
        // When the relay had to fix what the new device sees, it had not seen the new device's key.
        expect(mitm.seenAtRelease).not.toContain(toBase64(mitm.newKey!));
        expect(fresh.keyFingerprint).toBeUndefined();
      } finally {
        relay.onRequest = relay.onResponse = undefined;
      }
    },
  );

  it(
    'without the switch the relay is left one random guess: the strings differ, and a user who confirms anyway loses nothing',
    { timeout: 60_000 },
    async () => {
      const { old, fresh, userId } = await twoDevices();
      const mitm = installMitm(fresh, userId, false);
      try {
        const offer = await old.migration.start();
        const [joined, shown] = await Promise.all([
          fresh.migration.join(offer.code, FAST),
          offer.waitForJoin(FAST),
        ]);
        // The relay's values on each side were fixed before it learned that side's key: the match
        // is one draw of 10⁶ (it happens here with probability 10⁻⁶; the test would then fail).
        expect(joined.verification).not.toBe(shown.verification);
        expect(mitm.seenAtRelease).not.toContain(toBase64(mitm.newKey!));
        // A user who confirms anyway: the relay can neither read the bundle nor forge one.
        await offer.complete({ extras: { pinned: ['agent-1'], secret: 'app-data-7731' } });
        const got = await joined
          .receive({ protectionPassword: PROTECTION_PASSWORD, ...FAST })
          .catch((e: unknown) => e);
        expect(mitm.relayRead).toBeUndefined();
        expect(relay.seen.some((s) => s.text.includes('app-data-7731'))).toBe(false);
        expect(isCryptoError(got, 'MIGRATION_VERIFICATION_FAILED')).toBe(true);
        expect(fresh.keyFingerprint).toBeUndefined();
      } finally {
        relay.onRequest = relay.onResponse = undefined;
      }
    },
  );
});

describe('migration through a hostile relay: stalls and retries buy no second guess', () => {
  it('a 429 after the relay saw a key: the SDK retries with the same key, and the migration completes', async () => {
    const { old, fresh } = await twoDevices();
    const keyBodies: string[] = [];
    const revealBodies: string[] = [];
    const stalled = new Set<string>();
    relay.onRequest = (method, path, json) => {
      if (method === 'POST' && path.endsWith('/key')) keyBodies.push(JSON.stringify(json));
      if (method === 'POST' && path.endsWith('/reveal')) revealBodies.push(JSON.stringify(json));
      return json;
    };
    relay.onResponse = (method, path, json) => {
      // The service acted on the request; the relay tells the device to try again.
      const step = path.split('/').pop()!;
      if (method === 'POST' && (step === 'key' || step === 'reveal') && !stalled.has(step)) {
        stalled.add(step);
        return answer(
          429,
          { error: { code: 'RATE_LIMITED', message: 'slow down', params: { retry_after_ms: 10 } } },
          { 'retry-after': '0' },
        );
      }
      return json;
    };
    try {
      const offer = await old.migration.start();
      const [joined, shown] = await Promise.all([
        fresh.migration.join(offer.code, FAST),
        offer.waitForJoin(FAST),
      ]);
      expect(stalled).toEqual(new Set(['key', 'reveal']));
      expect(keyBodies.length).toBe(2);
      expect(new Set(keyBodies).size).toBe(1);
      expect(revealBodies.length).toBe(2);
      expect(new Set(revealBodies).size).toBe(1);
      expect(joined.verification).toBe(shown.verification);
      const [, result] = await Promise.all([
        offer.complete({ extras: { theme: 'dark' } }),
        joined.receive({ protectionPassword: PROTECTION_PASSWORD, ...FAST }),
      ]);
      expect(result.extras).toEqual({ theme: 'dark' });
      expect(fresh.keyFingerprint).toBe(old.keyFingerprint);
      // The same code a second time from this device: refused before anything is sent.
      const again = await fresh.migration.join(offer.code, FAST).catch((e: unknown) => e);
      expect(isCryptoError(again, 'MIGRATION_VERIFICATION_FAILED')).toBe(true);
    } finally {
      relay.onRequest = relay.onResponse = undefined;
    }
  });

  it('a relay that learned the old key and then shows the old device another new key is refused', async () => {
    const { old, fresh } = await twoDevices();
    const other = toBase64(ephemeralKeyPair(node).publicKey);
    let revealedOnce = false;
    relay.onResponse = (method, path, json) => {
      if (method === 'POST' && path.endsWith('/reveal')) revealedOnce = true;
      // After the reveal, the old device is shown another key as the new device's (e.g. a ground one).
      if (revealedOnce && (path.endsWith('/reveal') || method === 'GET')) {
        const data = dataOf(json);
        if (data['new_ephemeral_public_key'] !== undefined)
          return { data: { ...data, new_ephemeral_public_key: other } };
      }
      return json;
    };
    try {
      const offer = await old.migration.start();
      const [, oldSide] = await Promise.all([
        fresh.migration.join(offer.code, FAST).catch((e: unknown) => e),
        offer.waitForJoin(FAST).catch((e: unknown) => e),
      ]);
      expect(isCryptoError(oldSide, 'MIGRATION_VERIFICATION_FAILED')).toBe(true);
      // No string was shown, and a second wait does not start over with the other key.
      // (the device ended the session when it refused).
      const second = await offer.waitForJoin(FAST).catch((e: unknown) => e);
      expect(isServiceError(second, 'MIGRATION_SESSION_EXPIRED')).toBe(true);
    } finally {
      relay.onResponse = undefined;
    }
  });
});

describe('migration through a hostile relay: the genuine migration', () => {
  it('works end to end through the relay, which sees neither the extras nor any private key', async () => {
    const { old, fresh } = await twoDevices();
    const offer = await old.migration.start();
    const [joined, shown] = await Promise.all([
      fresh.migration.join(offer.code, FAST),
      offer.waitForJoin(FAST),
    ]);
    expect(joined.verification).toBe(shown.verification);
    const [, result] = await Promise.all([
      offer.complete({ extras: { pinned: ['agent-1'], note: 'extras-marker-5521' } }),
      joined.receive({ protectionPassword: PROTECTION_PASSWORD, ...FAST }),
    ]);
    expect(result.extras).toEqual({ pinned: ['agent-1'], note: 'extras-marker-5521' });
    expect(fresh.keyFingerprint).toBe(old.keyFingerprint);
    const text = relay.seen.map((s) => s.text).join('\n');
    expect(text).toContain('"bundle"');
    expect(text).not.toContain('extras-marker-5521');
    expect(text).not.toContain(PROTECTION_PASSWORD);
  });

  it('a bundle the relay flips or swaps is refused; no keys are adopted', async () => {
    const { old, fresh } = await twoDevices();
    relay.onRequest = (method, path, json) => {
      if (method !== 'POST' || !path.endsWith('/bundle')) return json;
      const sealed = fromBase64((json as { bundle: string }).bundle)!;
      sealed[sealed.length - 20]! ^= 1; // in the ciphertext
      return { bundle: toBase64(sealed) };
    };
    try {
      const offer = await old.migration.start();
      const [joined] = await Promise.all([fresh.migration.join(offer.code, FAST), offer.waitForJoin(FAST)]);
      await offer.complete({ extras: { theme: 'dark' } });
      const got = await joined
        .receive({ protectionPassword: PROTECTION_PASSWORD, ...FAST })
        .catch((e: unknown) => e);
      expect(isCryptoError(got, 'MIGRATION_VERIFICATION_FAILED')).toBe(true);
      expect(fresh.keyFingerprint).toBeUndefined();
    } finally {
      relay.onRequest = undefined;
    }
  });
});
