/**
 * Data grants against the reference server: request, decision (event and
 * read-back), reading each scope, and every grant code provoked for real —
 * GRANT_DENIED (pending and denied), GRANT_EXPIRED (virtual time),
 * GRANT_REVOKED with `grant.revoked` by WebSocket and by webhook.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isServiceError, isValidationError } from '../../../packages/sdk/src/index.js';
import { type GrantScope } from '../../../packages/sdk/src/protocol.js';
import { createTestWorld, type TestWorld } from '../../../packages/dev/src/testing/index.js';

let world: TestWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function ask(w: TestWorld, scope: GrantScope = 'profile.read', windowSeconds = 3600) {
  return w.agent.grants.request({
    conversationId: w.conversationId,
    scope,
    windowSeconds,
    reason: 'to greet you by name',
  });
}

async function codeOf(p: Promise<unknown>): Promise<{ code: string; status: number | undefined }> {
  const err = (await p.then(
    () => ({ code: 'none', status: undefined }),
    (e: unknown) => e,
  )) as { code: string; status: number | undefined };
  return { code: err.code, status: err.status };
}

describe('data grants', () => {
  it('request → the user sees it → grants → the agent reads profile.read; conversations.list', async () => {
    world = await createTestWorld();
    const w = world;
    const asked = await ask(w);
    expect(asked).toMatchObject({
      status: 'pending',
      scope: 'profile.read',
      expiresAt: null,
      windowSeconds: 3600,
    });
    const pending = await w.user.grants.list({ status: 'pending' });
    expect(pending.map((g) => g.grantId)).toEqual([asked.grantId]);
    expect(pending[0]).toMatchObject({ agentId: w.agentId, reason: 'to greet you by name' });

    const decision = w.agent.grants.awaitDecision(asked.grantId);
    await w.user.grants.grant(asked.grantId, { windowSeconds: 600 });
    const decided = await decision;
    expect(decided).toMatchObject({ status: 'granted', windowSeconds: 600 });
    const event = await w.waitForDelivery((e) => e.type === 'grant.decided');
    expect(event).toMatchObject({ sealed: true, senderId: 'system', conversationId: 'system' });
    expect(event.payload).toMatchObject({ conversation_id: w.conversationId });
    expect(event.payload).toMatchObject({
      grant_id: asked.grantId,
      decision: 'granted',
      scope: 'profile.read',
    });

    const read = await w.agent.grants.read(asked.grantId);
    expect(read.scope).toBe('profile.read');
    if (read.scope === 'profile.read') {
      expect(read.data.user_id).toBe(w.user.session?.userId);
      expect(read.data.display_name.length).toBeGreaterThan(1);
    }

    const list = await ask(w, 'conversations.list');
    await w.user.grants.grant(list.grantId);
    const convs = await w.agent.grants.read(list.grantId);
    expect(convs.scope === 'conversations.list' && convs.data.map((c) => c.conversation_id)).toEqual([
      w.conversationId,
    ]);
    expect((await w.agent.grants.list()).map((g) => g.status)).toEqual(['granted', 'granted']);
  });

  it('GRANT_DENIED (403) while pending and after the user denies', async () => {
    world = await createTestWorld();
    const asked = await ask(world);
    expect(await codeOf(world.agent.grants.read(asked.grantId))).toEqual({
      code: 'GRANT_DENIED',
      status: 403,
    });
    const decision = world.agent.grants.awaitDecision(asked.grantId);
    await world.user.grants.deny(asked.grantId);
    expect((await decision).status).toBe('denied');
    expect(await codeOf(world.agent.grants.read(asked.grantId))).toEqual({
      code: 'GRANT_DENIED',
      status: 403,
    });
    // A denied request cannot be granted afterwards.
    const late = await world.user.grants.grant(asked.grantId).catch((e: unknown) => e);
    expect(isServiceError(late, 'VALIDATION_ERROR')).toBe(true);
  });

  it('GRANT_EXPIRED (403) once the window has ended (virtual time)', async () => {
    world = await createTestWorld();
    const asked = await ask(world, 'profile.read', 60);
    await world.user.grants.grant(asked.grantId);
    expect((await world.agent.grants.read(asked.grantId)).grantId).toBe(asked.grantId);
    await world.advanceTime(59_000);
    expect((await world.agent.grants.read(asked.grantId)).scope).toBe('profile.read');
    await world.advanceTime(1_000);
    expect(await codeOf(world.agent.grants.read(asked.grantId))).toEqual({
      code: 'GRANT_EXPIRED',
      status: 403,
    });
    expect((await world.agent.grants.get(asked.grantId)).status).toBe('expired');
  });

  for (const mode of ['websocket', 'webhook'] as const) {
    it(`GRANT_REVOKED (403) after the user revokes; grant.revoked arrives by ${mode}`, async () => {
      world = await createTestWorld({ agent: { mode } });
      const w = world;
      const asked = await ask(w, 'conversations.list');
      const decision = w.agent.grants.awaitDecision(asked.grantId);
      await w.user.grants.grant(asked.grantId);
      expect((await decision).status).toBe('granted'); // grant.decided arrived by this transport
      await w.agent.grants.read(asked.grantId);
      const revoked = await w.user.grants.revoke(asked.grantId);
      expect(revoked.status).toBe('revoked');
      expect((await w.user.grants.revoke(asked.grantId)).status).toBe('revoked'); // idempotent
      expect(await codeOf(w.agent.grants.read(asked.grantId))).toEqual({
        code: 'GRANT_REVOKED',
        status: 403,
      });
      const event = await w.waitForDelivery((e) => e.type === 'grant.revoked');
      expect(event).toMatchObject({ transport: mode, sealed: true, senderId: 'system' });
      expect(event.payload).toMatchObject({
        grant_id: asked.grantId,
        scope: 'conversations.list',
        user_id: w.user.session?.userId,
      });
      if (mode === 'webhook') {
        await w.expectDeliveries({ eventType: 'grant.revoked', finalStatus: 'delivered', count: 1 });
        await w.expectDeliveries({ eventType: 'grant.decided', finalStatus: 'delivered', count: 1 });
      }
    });
  }

  it('refuses bad requests: an unknown scope (client), a window out of bounds, another agent’s conversation', async () => {
    world = await createTestWorld();
    const bad = await world.agent.grants
      .request({
        conversationId: world.conversationId,
        scope: 'files.read' as GrantScope,
        windowSeconds: 60,
        reason: 'x',
      })
      .catch((e: unknown) => e);
    expect(isValidationError(bad)).toBe(true);
    const short = await ask(world, 'profile.read', 59).catch((e: unknown) => e);
    expect(isServiceError(short, 'VALIDATION_ERROR')).toBe(true);
    const foreign = await world.agent.grants
      .request({ conversationId: 'not-mine', scope: 'profile.read', windowSeconds: 60, reason: 'x' })
      .catch((e: unknown) => e);
    expect(isServiceError(foreign, 'CONVERSATION_FORBIDDEN')).toBe(true);
    const unknown = await world.agent.grants.read('no-such-grant').catch((e: unknown) => e);
    expect(isServiceError(unknown, 'NOT_FOUND')).toBe(true);
    const longer = await ask(world, 'profile.read', 120);
    const tooLong = await world.user.grants
      .grant(longer.grantId, { windowSeconds: 121 })
      .catch((e: unknown) => e);
    expect(isServiceError(tooLong, 'VALIDATION_ERROR')).toBe(true);
  });

  it('after the relation is revoked, reading a live grant answers RELATION_REVOKED', async () => {
    world = await createTestWorld();
    const asked = await ask(world);
    await world.user.grants.grant(asked.grantId);
    await world.user.revokeConversation(world.conversationId);
    expect((await codeOf(world.agent.grants.read(asked.grantId))).code).toBe('RELATION_REVOKED');
  });
});
