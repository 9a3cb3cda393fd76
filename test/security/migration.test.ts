/**
 * Device migration against a hostile relay (issue #24, item 3): the relay
 * substitutes its own ephemeral keys on both sides, holds the new device's
 * join answer until the old device has revealed its key, then grinds the
 * session id it shows the new device so that both screens show the same
 * six digits, and finally reads and rewrites the sealed bundle.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserClient } from '../../packages/sdk/src/client/index.js';
import { fromBase64, toBase64 } from '../../packages/sdk/src/core/encoding.js';
import { isCryptoError } from '../../packages/sdk/src/core/errors/index.js';
import { nodeBackend } from '../../packages/sdk/src/crypto/backend/node.js';
import {
  bundleKeyOf,
  ephemeralKeyPair,
  openBundle,
  sealBundle,
  transcriptOf,
} from '../../packages/sdk/src/client/migration/migration-crypto.js';
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

async function newDevice(email: string): Promise<UserClient> {
  // The relay holds answers while it grinds: a patient client (the SDK would also retry a 429).
  const client = newUserClient(server, { baseUrl: relay.url, timeoutMs: 120_000 });
  await client.login({ email, accountPassword: ACCOUNT_PASSWORD, turnstileToken: 'pass' });
  return client;
}

/** The verification digits of (session id, old key, new key), as the relay computes them (v1). */
function digits(sessionId: string, oldKey: Uint8Array, newKey: Uint8Array): number {
  const t = createHash('sha256')
    .update('ams/migration/v1/transcript')
    .update(sessionId)
    .update(Uint8Array.of(0))
    .update(oldKey)
    .update(newKey)
    .digest();
  const h = createHash('sha256').update('ams/migration/v1/verification').update(t).digest();
  return h.readUInt32BE(0) % 1_000_000;
}

/** The relay's grinding loop, in a worker so the relay keeps answering while it runs. */
const GRIND = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { target, prefix, oldKey, newKey, transcriptLabel, verificationLabel } = workerData;
for (let i = 0; ; i++) {
  const id = prefix + i.toString(16).padStart(12, '0');
  const t = createHash('sha256').update(transcriptLabel).update(id).update(Uint8Array.of(0)).update(oldKey).update(newKey).digest();
  const h = createHash('sha256').update(verificationLabel).update(t).digest();
  if (h.readUInt32BE(0) % 1000000 === target) { parentPort.postMessage({ id, tries: i + 1 }); break; }
}`;

/** Grinds a session id (UUID form) for which (id, oldKey, newKey) shows `target`. */
function grindSessionId(
  target: number,
  oldKey: Uint8Array,
  newKey: Uint8Array,
): Promise<{ id: string; tries: number }> {
  const hex = (n: number): string => randomBytes(n).toString('hex');
  const prefix = `${hex(4)}-${hex(2)}-4${hex(2).slice(1)}-8${hex(2).slice(1)}-`;
  const worker = new Worker(GRIND, {
    eval: true,
    workerData: {
      target,
      prefix,
      oldKey,
      newKey,
      transcriptLabel: 'ams/migration/v1/transcript',
      verificationLabel: 'ams/migration/v1/verification',
    },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { id: string; tries: number }) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

const dataOf = (json: unknown): Record<string, unknown> =>
  ((json as { data?: Record<string, unknown> }).data ?? {}) as Record<string, unknown>;

describe('migration through a hostile relay: the grinding attack of #24', () => {
  it(
    'a relay that holds the join answer and grinds the session id cannot make both screens agree',
    { timeout: 120_000 },
    async () => {
      const { client: old, email } = await signUp(server, newUserClient(server, { baseUrl: relay.url }));
      const fresh = await newDevice(email);
      const toOld = ephemeralKeyPair(node); // the relay's key shown to the old device as the new one
      const toNew = ephemeralKeyPair(node); // the relay's key shown to the new device as the old one
      let newKey: Uint8Array | undefined;
      let realId = '';
      let fakeId = '';
      let revealed: () => void = () => undefined;
      const oldRevealed = new Promise<void>((r) => (revealed = r));
      let oldKey: Uint8Array | undefined;
      let rewrittenBundle: string | undefined;
      let relayRead: unknown;

      relay.onRequest = (method, path, json) => {
        const body = json as Record<string, unknown>;
        if (method === 'POST' && path === '/migrations/join') {
          newKey = fromBase64(body['ephemeral_public_key'] as string);
          return { ...body, ephemeral_public_key: toBase64(toOld.publicKey) };
        }
        if (method === 'POST' && path.endsWith('/reveal')) {
          oldKey = fromBase64(body['ephemeral_public_key'] as string);
        }
        return json;
      };
      relay.onResponse = async (method, path, json) => {
        if (method === 'POST' && path === '/migrations/join') {
          // Hold the answer until the old device revealed, then grind the session id.
          realId = dataOf(json)['session_id'] as string;
          await oldRevealed;
          const shownOnOld = digits(realId, oldKey!, toOld.publicKey);
          const g = await grindSessionId(shownOnOld, toNew.publicKey, newKey!);
          fakeId = g.id;
          const commitment = createHash('sha256')
            .update('ams/migration/v1/commit')
            .update(toNew.publicKey)
            .digest('base64');
          return { data: { ...dataOf(json), session_id: fakeId, commitment } };
        }
        if (method === 'POST' && path.endsWith('/reveal')) {
          revealed();
          return json;
        }
        if (fakeId !== '' && path.includes(fakeId)) {
          if (method === 'DELETE') return answer(200, { data: { session_id: fakeId, closed: true } });
          return answer(200, {
            data: {
              session_id: fakeId,
              state: rewrittenBundle === undefined ? 'revealed' : 'sealed',
              expires_at: new Date(server.clock.now() + 60_000).toISOString(),
              commitment: createHash('sha256')
                .update('ams/migration/v1/commit')
                .update(toNew.publicKey)
                .digest('base64'),
              new_ephemeral_public_key: toBase64(newKey!),
              old_ephemeral_public_key: toBase64(toNew.publicKey),
              ...(rewrittenBundle === undefined ? {} : { bundle: rewrittenBundle }),
            },
          });
        }
        return json;
      };
      relay.onRequest = ((inner) => async (method: string, path: string, json: unknown) => {
        const out = inner(method, path, json);
        if (method === 'POST' && path.endsWith('/bundle')) {
          // Read the old device's bundle with the key it shares with the relay, rewrite it for the new device.
          const sealed = fromBase64((json as { bundle: string }).bundle)!;
          const tOld = await transcriptOf(node, realId, oldKey!, toOld.publicKey);
          const kOld = await bundleKeyOf(node, toOld, oldKey!, tOld);
          const plain = JSON.parse(
            new TextDecoder().decode(await openBundle(node, kOld, tOld, sealed)),
          ) as Record<string, unknown>;
          relayRead = plain['extras'];
          const forged = { ...plain, extras: { pinned: ['relay-agent'] } };
          const tNew = await transcriptOf(node, fakeId, toNew.publicKey, newKey!);
          const kNew = await bundleKeyOf(node, toNew, newKey!, tNew);
          rewrittenBundle = toBase64(
            await sealBundle(node, kNew, tNew, new TextEncoder().encode(JSON.stringify(forged))),
          );
        }
        return out;
      })(relay.onRequest);

      try {
        const offer = await old.migration.start();
        const [joined, shown] = await Promise.all([
          fresh.migration.join(offer.code, FAST).catch((e: unknown) => e),
          offer.waitForJoin(FAST),
        ]);
        // Either the new device refused the session, or the two screens disagree.
        const agreed =
          !isCryptoError(joined) && (joined as { verification: string }).verification === shown.verification;
        expect(agreed).toBe(false);
        if (isCryptoError(joined)) return;
        // A user who confirms anyway: the relay neither reads nor rewrites the bundle.
        await offer.complete({ extras: { pinned: ['agent-1'] } });
        const got = await (joined as { receive: (o: object) => Promise<unknown> })
          .receive({ protectionPassword: PROTECTION_PASSWORD, ...FAST })
          .catch((e: unknown) => e);
        expect(relayRead).toBeUndefined();
        expect(isCryptoError(got, 'MIGRATION_VERIFICATION_FAILED')).toBe(true);
        expect(fresh.keyFingerprint).toBeUndefined();
      } finally {
        relay.onRequest = relay.onResponse = undefined;
      }
    },
  );
});
