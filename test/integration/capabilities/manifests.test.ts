/**
 * Capability manifests against the reference server: the size rules (client
 * and service), the rate limit (virtual time; failing fast and queued), the
 * version conflict and its re-read helper, the owner's decision and
 * `agent.capability_changed` by WebSocket and by webhook.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  isRateLimitError,
  isServiceError,
  LIMITS,
  ManifestTooLargeError,
  type AgentWarning,
} from '../../../packages/sdk/src/index.js';
import { manifestSizeBytes, type CapabilityManifest } from '../../../packages/sdk/src/protocol.js';
import { createTestWorld, type TestWorld } from '../../../packages/dev/src/testing/index.js';
import { manifestOfSize, sampleManifest } from '../../fixtures/manifests/manifests.js';

let world: TestWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** PUT the manifest as raw JSON with the agent token, past the SDK's own checks. */
async function rawPut(w: TestWorld, token: string, body: unknown): Promise<Response> {
  return fetch(`${w.server.url}/agents/${w.agentId}/manifest`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('manifest size', () => {
  it('refuses above 128 KB on the client with the size, before any request', async () => {
    world = await createTestWorld();
    const big = manifestOfSize(LIMITS.MANIFEST_MAX_BYTES + 10);
    const err = await world.agent.manifest.update(big, { basedOnVersion: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ManifestTooLargeError);
    const e = err as ManifestTooLargeError;
    expect(e.code).toBe('MANIFEST_TOO_LARGE');
    expect(e.clientSide).toBe(true);
    expect(e.sizeBytes).toBe(manifestSizeBytes(big));
    expect(e.params['size_bytes']).toBe(e.sizeBytes);
    expect((await world.agent.manifest.get()).head_version).toBe(0);
  });

  it('the service refuses above 128 KB too: 413 MANIFEST_TOO_LARGE with the size', async () => {
    world = await createTestWorld();
    const token = await tokenOf(world);
    const big = manifestOfSize(LIMITS.MANIFEST_MAX_BYTES + 10);
    const res = await rawPut(world, token, { manifest: big, based_on_version: 0 });
    expect(res.status).toBe(413);
    const body = (await res.json()) as { error: { code: string; params: Record<string, unknown> } };
    expect(body.error.code).toBe('MANIFEST_TOO_LARGE');
    expect(body.error.params['size_bytes']).toBe(manifestSizeBytes(big));
    expect(body.error.params['max_bytes']).toBe(LIMITS.MANIFEST_MAX_BYTES);
  });

  it('warns at 64 KB and above (event and logger) and still sends', async () => {
    const lines: string[] = [];
    const logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (m: string) => void lines.push(m),
      error: () => undefined,
    };
    world = await createTestWorld({ agent: { options: { logger } } });
    const warnings: AgentWarning[] = [];
    world.agent.on('warning', (w) => void warnings.push(w));
    const large = manifestOfSize(LIMITS.MANIFEST_WARN_BYTES);
    const revision = await world.agent.manifest.update(large, { basedOnVersion: 0 });
    expect(revision.size_warning).toBe(true);
    expect(revision.size_bytes).toBe(manifestSizeBytes(large));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ code: 'MANIFEST_SIZE_WARNING', sizeBytes: manifestSizeBytes(large) });
    expect(lines.some((l) => l.includes('warning line'))).toBe(true);
    const small = await world.agent.manifest.get();
    expect(small.pending?.version).toBe(1);
  });
});

describe('manifest rate limit (1 per minute, virtual time)', () => {
  it('failFast: a second update inside the minute fails with MANIFEST_UPDATE_RATE_LIMITED from the service', async () => {
    world = await createTestWorld();
    await world.agent.manifest.update(sampleManifest('1.0.0'), { basedOnVersion: 0 });
    // A second process of the same agent (its own client state) meets the service's limit.
    const token = await tokenOf(world);
    const res = await rawPut(world, token, { manifest: sampleManifest('1.0.1'), based_on_version: 1 });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBe(60);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      'MANIFEST_UPDATE_RATE_LIMITED',
    );
    const err = await world.agent.manifest
      .update(sampleManifest('1.0.1'), { basedOnVersion: 1, failFast: true })
      .catch((e: unknown) => e);
    expect(isRateLimitError(err) && err.code === 'MANIFEST_UPDATE_RATE_LIMITED').toBe(true);
    await world.advanceTime(LIMITS.MANIFEST_UPDATE_WINDOW_MS);
    const ok = await world.agent.manifest.update(sampleManifest('1.0.1'), {
      basedOnVersion: 1,
      failFast: true,
    });
    expect(ok.version).toBe(2);
  });

  it('queues an update refused by the service (429) and sends it once the minute has passed', async () => {
    world = await createTestWorld();
    const token = await tokenOf(world);
    // Another process updated first: this agent object knows nothing of it.
    const first = await rawPut(world, token, { manifest: sampleManifest('1.0.0'), based_on_version: 0 });
    expect(first.status).toBe(202);
    let settled = false;
    const queued = world.agent.manifest.update(sampleManifest('2.0.0'), { basedOnVersion: 1 }).finally(() => {
      settled = true;
    });
    await sleep(300);
    expect(settled).toBe(false);
    await world.advanceTime(LIMITS.MANIFEST_UPDATE_WINDOW_MS);
    const revision = await queued;
    expect(revision).toMatchObject({ version: 2, status: 'pending' });
    expect(revision.manifest.version).toBe('2.0.0');
  });

  it('queues a second update of the same agent behind its own last one', async () => {
    world = await createTestWorld();
    await world.agent.manifest.update(sampleManifest('1.0.0'), { basedOnVersion: 0 });
    const queued = world.agent.manifest.update(sampleManifest('1.1.0'), { basedOnVersion: 1 });
    await sleep(300);
    expect((await world.agent.manifest.get()).head_version).toBe(1);
    await world.advanceTime(LIMITS.MANIFEST_UPDATE_WINDOW_MS);
    expect((await queued).version).toBe(2);
  });
});

describe('manifest version conflict', () => {
  it('409 MANIFEST_VERSION_CONFLICT for a stale basedOnVersion; updateWithRetry re-reads and succeeds', async () => {
    world = await createTestWorld();
    const token = await tokenOf(world);
    expect(
      (await rawPut(world, token, { manifest: sampleManifest('1.0.0'), based_on_version: 0 })).status,
    ).toBe(202);
    await world.advanceTime(LIMITS.MANIFEST_UPDATE_WINDOW_MS);
    const err = await world.agent.manifest
      .update(sampleManifest('1.0.1'), { basedOnVersion: 0 })
      .catch((e: unknown) => e);
    expect(isServiceError(err, 'MANIFEST_VERSION_CONFLICT')).toBe(true);
    expect((err as { status: number }).status).toBe(409);
    expect((err as { params: Record<string, unknown> }).params['head_version']).toBe(1);
    const seen: number[] = [];
    const revision = await world.agent.manifest.updateWithRetry((state) => {
      seen.push(state.head_version);
      return sampleManifest(`1.0.${state.head_version + 1}`);
    });
    expect(seen).toEqual([1]);
    expect(revision.version).toBe(2);
  });

  it('the owner deciding a version that is no longer pending gets MANIFEST_VERSION_CONFLICT', async () => {
    world = await createTestWorld();
    await world.agent.manifest.update(sampleManifest('1.0.0'), { basedOnVersion: 0 });
    await world.advanceTime(LIMITS.MANIFEST_UPDATE_WINDOW_MS);
    await world.agent.manifest.update(sampleManifest('1.0.1'), { basedOnVersion: 1 });
    const err = await world.user.manifests.accept(world.agentId, 1).catch((e: unknown) => e);
    expect(isServiceError(err, 'MANIFEST_VERSION_CONFLICT')).toBe(true);
    const state = await world.user.manifests.get(world.agentId);
    expect(state.pending?.version).toBe(2);
  });
});

describe('the owner decides; agent.capability_changed', () => {
  for (const mode of ['websocket', 'webhook'] as const) {
    it(`accept and reject reach the agent by ${mode}, sealed by the system sender`, async () => {
      world = await createTestWorld({ agent: { mode } });
      const w = world;
      const manifest: CapabilityManifest = sampleManifest('3.0.0');
      const r1 = await w.agent.manifest.update(manifest, { basedOnVersion: 0 });
      const pending = await w.user.manifests.pending([w.agentId]);
      expect(pending).toEqual([{ agentId: w.agentId, revision: expect.objectContaining({ version: 1 }) }]);
      const decision = w.agent.manifest.awaitDecision(r1.version);
      await w.user.manifests.accept(w.agentId, r1.version);
      expect(await decision).toEqual({ version: 1, decision: 'accepted' });
      const event = await w.waitForDelivery((e) => e.type === 'agent.capability_changed');
      expect(event).toMatchObject({ transport: mode, sealed: true, senderId: 'system' });
      expect(event.payload).toMatchObject({ agent_id: w.agentId, version: 1, decision: 'accepted' });
      expect((await w.agent.manifest.get()).current?.manifest).toEqual(manifest);

      await w.advanceTime(LIMITS.MANIFEST_UPDATE_WINDOW_MS);
      const r2 = await w.agent.manifest.update(sampleManifest('3.1.0'), { basedOnVersion: 1 });
      await w.user.manifests.reject(w.agentId, r2.version);
      const rejected = await w.waitForDelivery((e) => e.type === 'agent.capability_changed');
      expect(rejected.payload).toMatchObject({ version: 2, decision: 'rejected' });
      // Decided before the wait began: read from the service.
      expect(await w.agent.manifest.awaitDecision(2)).toEqual({ version: 2, decision: 'rejected' });
      const state = await w.agent.manifest.get();
      expect(state.current?.version).toBe(1);
      expect(state.pending).toBeNull();
      if (mode === 'webhook') {
        await w.expectDeliveries({
          eventType: 'agent.capability_changed',
          finalStatus: 'delivered',
          count: 2,
        });
      }
    });
  }

  it("another user cannot see or decide on the agent's manifest", async () => {
    world = await createTestWorld();
    await world.agent.manifest.update(sampleManifest(), { basedOnVersion: 0 });
    const { signUpUser } = await import('../../../packages/dev/src/testing/test-world-parts.js');
    const stranger = await signUpUser(world.server, 'Stranger');
    const err = await stranger.manifests.accept(world.agentId, 1).catch((e: unknown) => e);
    expect(isServiceError(err, 'AGENT_NOT_FOUND')).toBe(true);
    await stranger.signOut();
  });
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * A second token of the world's agent, as another process of it would hold:
 * regenerated by the owner (the agent's own token stays valid in its 7-day grace).
 */
async function tokenOf(w: TestWorld): Promise<string> {
  return (await w.user.regenerateAgentToken(w.agentId)).token;
}
