/**
 * Artifacts end to end against the reference server (real sockets, virtual
 * time): round trips, every denied reason that needs no group, expiry and
 * revision conflicts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ArtifactHandle } from '../../../packages/sdk/src/agent/artifacts.js';
import type { ReceivedArtifact } from '../../../packages/sdk/src/client/user-artifacts.js';
import {
  isServiceError,
  isTimeoutError,
  isValidationError,
} from '../../../packages/sdk/src/core/errors/index.js';
import { createTestWorld, type TestWorld } from '../../../packages/dev/src/testing/index.js';

let world: TestWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A world whose user is connected and collects the artifacts it receives. */
async function setUp(): Promise<{
  w: TestWorld;
  received: ReceivedArtifact[];
  next: () => Promise<ReceivedArtifact>;
}> {
  const w = await createTestWorld();
  world = w;
  const received: ReceivedArtifact[] = [];
  w.user.on('artifact', (a) => received.push(a));
  await w.user.connect();
  const next = async (): Promise<ReceivedArtifact> => {
    for (let i = 0; i < 400; i++) {
      const a = received.shift();
      if (a !== undefined) return a;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error('no artifact arrived');
  };
  return { w, received, next };
}

const confirm = { kind: 'confirm', title: 'Delete 3 files?' } as const;

async function outcomeSoon(handle: ArtifactHandle) {
  return handle.response({ timeoutMs: 3_000 });
}

describe('artifacts', () => {
  it('round trip: the human approves a confirmation, the agent awaits the answer; the server sees ciphertext only', async () => {
    const { w, next } = await setUp();
    const messages: string[] = [];
    w.user.on('message', (m) => messages.push(String(m.payload['type'])));
    const handle = await w.agent.artifacts.send(w.conversationId, { content: confirm });
    expect(handle.revision).toBe(1);
    const a = await next();
    expect(a).toMatchObject({
      artifactId: handle.artifactId,
      revision: 1,
      senderId: w.agentId,
      content: confirm,
    });
    expect(messages).toContain('artifact');
    const stored = await w.agent.api.messages(w.conversationId);
    const raw = Buffer.from(stored.at(-1)!.wire_envelope, 'base64').toString('latin1');
    expect(raw).not.toContain('Delete 3 files');
    expect(await a.approve()).toEqual({ accepted: true, state: 'answered', reason: null });
    const outcome = await outcomeSoon(handle);
    expect(outcome).toMatchObject({
      status: 'approved',
      artifactId: handle.artifactId,
      revision: 1,
      data: {},
    });
    const event = await w.waitForDelivery((e) => e.type === 'artifact_response');
    expect(event).toMatchObject({ status: 'approved', senderId: w.user.session!.userId, sealed: true });
    expect((await w.agent.artifacts.status(handle.artifactId)).state).toBe('answered');
  });

  it('a form: data is checked against the fields, then sealed for the agent', async () => {
    const { w, next } = await setUp();
    const handle = await w.agent.artifacts.send(w.conversationId, {
      content: {
        kind: 'form',
        title: 'Ship to',
        fields: [
          { name: 'city', label: 'City', input: 'text', required: true },
          { name: 'speed', label: 'Speed', input: 'choice', options: ['slow', 'fast'] },
        ],
      },
    });
    const a = await next();
    const bad = await a.approve({ speed: 'warp' }).catch((e: unknown) => e);
    expect(isValidationError(bad)).toBe(true);
    await a.approve({ city: 'Lyon', speed: 'fast' });
    expect(await outcomeSoon(handle)).toMatchObject({
      status: 'approved',
      data: { city: 'Lyon', speed: 'fast' },
    });
  });

  it('user_rejected and tool_not_implemented come from the human, typed, by: user', async () => {
    const { w, next } = await setUp();
    const first = await w.agent.artifacts.send(w.conversationId, { content: confirm });
    await (await next()).deny('user_rejected');
    expect(await outcomeSoon(first)).toMatchObject({ status: 'denied', reason: 'user_rejected', by: 'user' });
    const tool = await w.agent.artifacts.send(w.conversationId, {
      content: {
        kind: 'tool_request',
        title: 'Read GPS',
        tool: { name: 'gps', arguments: {}, timeout_ms: 5_000 },
      },
    });
    const received = await next();
    expect(received.content.kind).toBe('tool_request');
    await received.deny('tool_not_implemented');
    expect(await outcomeSoon(tool)).toMatchObject({
      status: 'denied',
      reason: 'tool_not_implemented',
      by: 'user',
    });
    const notHuman = await received.deny('user_timeout' as never).catch((e: unknown) => e);
    expect(isValidationError(notHuman)).toBe(true);
  });

  it('user_timeout: a high-sensitivity artifact unanswered for 30 s is denied by the service', async () => {
    const { w, next } = await setUp();
    const handle = await w.agent.artifacts.send(w.conversationId, { content: confirm, sensitivity: 'high' });
    const a = await next();
    await w.advanceTime(29_999);
    expect(handle.outcome).toBeUndefined();
    await w.advanceTime(1);
    expect(await outcomeSoon(handle)).toMatchObject({
      status: 'denied',
      reason: 'user_timeout',
      by: 'service',
    });
    expect(await a.approve()).toEqual({ accepted: false, state: 'denied', reason: 'user_timeout' });
  });

  it('tool_timeout: the human client answers a tool request after tool.timeout_ms (service clock)', async () => {
    const { w, next } = await setUp();
    const handle = await w.agent.artifacts.send(w.conversationId, {
      content: {
        kind: 'tool_request',
        title: 'Scan',
        tool: { name: 'scan', arguments: { dir: '/tmp' }, timeout_ms: 5_000 },
      },
    });
    expect((await w.agent.artifacts.status(handle.artifactId)).toolTimeoutMs).toBe(5_000);
    const a = await next();
    await w.advanceTime(5_000);
    expect(await a.approve({ result: 'late' })).toEqual({
      accepted: false,
      state: 'denied',
      reason: 'tool_timeout',
    });
    expect(await outcomeSoon(handle)).toMatchObject({
      status: 'denied',
      reason: 'tool_timeout',
      by: 'service',
    });
  });

  it('permission_revoked: the relation is revoked while the artifact is open', async () => {
    const { w, next } = await setUp();
    const handle = await w.agent.artifacts.send(w.conversationId, { content: confirm });
    await next();
    await w.user.revokeConversation(w.conversationId);
    expect(await outcomeSoon(handle)).toMatchObject({
      status: 'denied',
      reason: 'permission_revoked',
      by: 'service',
    });
  });

  it('artifact.expired reaches the WebSocket agent when the time to live runs out', async () => {
    const { w, next } = await setUp();
    const handle = await w.agent.artifacts.send(w.conversationId, { content: confirm, ttlMs: 60_000 });
    const a = await next();
    await w.advanceTime(60_000);
    const outcome = await outcomeSoon(handle);
    expect(outcome).toMatchObject({ status: 'expired', artifactId: handle.artifactId, revision: 1 });
    const event = await w.waitForDelivery((e) => e.type === 'artifact.expired');
    expect(event).toMatchObject({
      artifactId: handle.artifactId,
      senderId: 'system',
      transport: 'websocket',
    });
    expect(await a.approve()).toMatchObject({ accepted: false, state: 'expired' });
  });

  it('response() rejects with a TimeoutError when no answer comes in time; the artifact stays open', async () => {
    const { w } = await setUp();
    const handle = await w.agent.artifacts.send(w.conversationId, { content: confirm });
    const err = await handle.response({ timeoutMs: 30 }).catch((e: unknown) => e);
    expect(isTimeoutError(err)).toBe(true);
    expect((await w.agent.artifacts.status(handle.artifactId)).state).toBe('open');
  });

  it('withdraw(): the human sees "No longer needed" in place of the question, cannot answer the question, and the withdrawal expires; once answered it does nothing', async () => {
    const { w, next } = await setUp();
    const handle = await w.agent.artifacts.send(w.conversationId, { content: confirm });
    const asked = await next();
    expect(await handle.withdraw('No answer came in time.')).toBe(true);
    const withdrawn = await next();
    expect(withdrawn).toMatchObject({ artifactId: handle.artifactId, revision: 2 });
    expect(withdrawn.content).toEqual({
      kind: 'confirm',
      title: 'No longer needed: Delete 3 files?',
      body: 'No answer came in time.',
    });
    await expect(asked.approve()).rejects.toMatchObject({ code: 'ARTIFACT_REVISION_CONFLICT' });
    await w.advanceTime(1_000);
    expect(await withdrawn.approve()).toMatchObject({ accepted: false, state: 'expired' });
    const stored = await w.agent.api.messages(w.conversationId);
    const raw = Buffer.from(stored.at(-1)!.wire_envelope, 'base64').toString('latin1');
    expect(raw).not.toContain('No longer needed'); // sealed, as the question was
    // An artifact that has its outcome is left alone.
    const answered = await w.agent.artifacts.send(w.conversationId, { content: confirm });
    await (await next()).approve();
    await outcomeSoon(answered);
    expect(await answered.withdraw()).toBe(false);
    expect(answered.revision).toBe(1);
  });

  it('ARTIFACT_REVISION_CONFLICT: two updates on one revision; update(fn) re-reads and retries', async () => {
    const { w, next } = await setUp();
    const handle = await w.agent.artifacts.send(w.conversationId, { content: confirm });
    const first = await next();
    const results = await Promise.allSettled([
      handle.replace({ content: { kind: 'confirm', title: 'Delete 4 files?' } }),
      handle.replace({ content: { kind: 'confirm', title: 'Delete 5 files?' } }),
    ]);
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    const reason = (rejected[0] as PromiseRejectedResult).reason as unknown;
    expect(isServiceError(reason, 'ARTIFACT_REVISION_CONFLICT')).toBe(true);
    expect(isServiceError(reason) && reason.status).toBe(409);
    expect(isServiceError(reason) && reason.params['current_revision']).toBe(2);
    await w.advanceTime(1_000); // the service allows 5 sends per second per agent
    const seen: number[] = [];
    const revisions = await Promise.all(
      [6, 7].map((n) =>
        handle.update(({ revision }) => {
          seen.push(revision);
          return { content: { kind: 'confirm', title: `Delete ${n} files?` } };
        }),
      ),
    );
    expect(revisions.sort()).toEqual([3, 4]);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    const stale = await first.approve().catch((e: unknown) => e);
    expect(isServiceError(stale, 'ARTIFACT_REVISION_CONFLICT')).toBe(true);
    let latest = await next();
    while (latest.revision < 4) latest = await next();
    await latest.approve();
    expect(await outcomeSoon(handle)).toMatchObject({ status: 'approved', revision: 4 });
  });

  it('update(fn) gives up after maxAttempts conflicts with the typed error, and succeeds with a retry left', async () => {
    const { w } = await setUp();
    const handle = await w.agent.artifacts.send(w.conversationId, { content: confirm });
    let calls = 0;
    // Each first call lets another update land first: the attempt conflicts.
    const racing = async () => {
      calls += 1;
      if (calls % 2 === 1) await handle.replace({ content: confirm });
      return { content: { kind: 'confirm', title: 'Really?' } } as const;
    };
    const err = await handle.update(racing, { maxAttempts: 1 }).catch((e: unknown) => e);
    expect(isServiceError(err, 'ARTIFACT_REVISION_CONFLICT')).toBe(true);
    await w.advanceTime(1_000);
    calls = 0;
    expect(await handle.update(racing, { maxAttempts: 2 })).toBe(4);
    expect(calls).toBe(2);
  });

  it('webhook mode: the answer arrives by webhook and settles response(); bad content never leaves the agent', async () => {
    const w = await createTestWorld({ agent: { mode: 'webhook' } });
    world = w;
    const received: ReceivedArtifact[] = [];
    w.user.on('artifact', (a) => received.push(a));
    await w.user.connect();
    const bad = await w.agent.artifacts
      .send(w.conversationId, { content: { kind: 'form', title: 'x', fields: [] } as never })
      .catch((e: unknown) => e);
    expect(isValidationError(bad)).toBe(true);
    const handle = await w.agent.artifacts.send(w.conversationId, { content: confirm });
    for (let i = 0; i < 400 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    await received[0]!.approve();
    const outcome = await outcomeSoon(handle);
    expect(outcome.status).toBe('approved');
    expect(outcome.event.transport).toBe('webhook');
    await w.expectDeliveries({ eventType: 'artifact_response', finalStatus: 'delivered', count: 1 });
  });

  it('the service refuses an unknown artifact, a reused id, and an update of a closed artifact', async () => {
    const { w, next } = await setUp();
    const unknown = await w.agent.artifacts.status('no-such-artifact').catch((e: unknown) => e);
    expect(isServiceError(unknown, 'NOT_FOUND')).toBe(true);
    const handle = await w.agent.artifacts.send(w.conversationId, {
      content: confirm,
      artifactId: 'a-fixed',
    });
    const reused = await w.agent.artifacts
      .send(w.conversationId, { content: confirm, artifactId: 'a-fixed' })
      .catch((e: unknown) => e);
    expect(isServiceError(reused, 'VALIDATION_ERROR') && reused.params['reason']).toBe(
      'duplicate_artifact_id',
    );
    await (await next()).approve();
    await outcomeSoon(handle);
    const closed = await handle.replace({ content: confirm }).catch((e: unknown) => e);
    expect(isServiceError(closed, 'VALIDATION_ERROR') && closed.params['reason']).toBe('artifact_closed');
  });
});
