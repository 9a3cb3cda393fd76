/**
 * Forwarding and reactions end to end against the reference server: copies
 * re-sealed on the client, FORWARD_TARGET_LIMIT (client and service),
 * ARTIFACT_NOT_FORWARDABLE, reaction.update both ways, the webhook-mode warning.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAgentApi,
  ensureAgentKeys,
  type AnyAgentEvent,
} from '../../../packages/sdk/src/agent/index.js';
import type { ReceivedReaction } from '../../../packages/sdk/src/client/user-artifacts.js';
import type { ReceivedArtifact } from '../../../packages/sdk/src/client/user-artifacts.js';
import { isServiceError, isValidationError } from '../../../packages/sdk/src/core/errors/index.js';
import { ARTIFACT_ROUTES, routePath } from '../../../packages/sdk/src/core/protocol/service-names.js';
import { MemoryKeyStore } from '../../../packages/sdk/src/crypto/index.js';
import { createTestWorld, type TestWorld } from '../../../packages/dev/src/testing/index.js';
import { signUpUser } from '../../../packages/dev/src/testing/test-world-parts.js';

let world: TestWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function waitFor<T>(read: () => T | undefined): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = read();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('timed out');
}

/** A second user in a conversation with the world's agent. */
async function secondUser(w: TestWorld) {
  const user = await signUpUser(w.server, 'Second user');
  const { conversationId } = await user.addAgent(w.agentId);
  return { user, conversationId };
}

/** A second agent of the world's user, in a conversation with the user. */
async function secondAgent(w: TestWorld) {
  const created = await w.user.createAgent({ name: 'Other agent' });
  const api = createAgentApi({ baseUrl: w.server.url, agentId: created.agentId, token: created.token });
  await ensureAgentKeys({ api, store: new MemoryKeyStore(), clock: w.server.clock });
  const { conversationId } = await w.user.addAgent(created.agentId);
  return { agentId: created.agentId, conversationId };
}

describe('forwarding', () => {
  it('the agent forwards a message to another conversation, re-sealed for its members', async () => {
    const w = (world = await createTestWorld());
    const other = await secondUser(w);
    const id = await w.sendAsUser('forward me');
    const msg = await w.waitForDelivery();
    expect(msg.messageId).toBe(id);
    const copies = await w.agent.forward(msg as Extract<AnyAgentEvent, { type: 'message.new' }>, [
      other.conversationId,
    ]);
    expect(copies).toHaveLength(1);
    const page = await other.user.messages(other.conversationId);
    const copy = page.messages.find((m) => m.messageId === copies[0]!.messageId);
    expect(copy?.payload).toEqual({
      type: 'forwarded',
      original: {
        conversation_id: w.conversationId,
        message_id: id,
        sender_id: w.user.session!.userId,
        created_at: msg.createdAt,
      },
      payload: { type: 'text', text: 'forward me' },
      // #24 item 8: the original envelope and its content key, so receivers can check the attribution.
      proof: { wire_envelope: expect.any(String), content_key: expect.any(String) },
    });
    expect(copy?.senderId).toBe(w.agentId);
    // The second user shares no conversation with the original sender: the service serves no key
    // to check the proof against, so the attribution stays the forwarder's claim.
    expect(copy?.forwarded).toMatchObject({
      verified: false,
      reason: 'unknown_sender',
      forwardedBy: w.agentId,
    });
    await other.user.signOut();
  });

  it('FORWARD_TARGET_LIMIT: more than 10 targets, refused on the client first and by the service', async () => {
    const w = (world = await createTestWorld());
    await w.sendAsUser('x');
    const msg = (await w.waitForDelivery()) as Extract<AnyAgentEvent, { type: 'message.new' }>;
    const targets = Array.from({ length: 11 }, (_, i) => `c-${i}`);
    const client = await w.agent.forward(msg, targets).catch((e: unknown) => e);
    expect(isServiceError(client, 'FORWARD_TARGET_LIMIT')).toBe(true);
    expect(isServiceError(client) && client.status).toBe(400);
    const service = await w.agent.api.rest
      .request({
        method: ARTIFACT_ROUTES.forward.method,
        path: routePath(ARTIFACT_ROUTES.forward),
        body: {
          source: { conversation_id: w.conversationId, message_id: msg.messageId },
          targets: targets.map((conversation_id) => ({ conversation_id, wire_envelope: 'AAAA' })),
        },
      })
      .catch((e: unknown) => e);
    expect(isServiceError(service, 'FORWARD_TARGET_LIMIT')).toBe(true);
    expect(isServiceError(service) && service.params).toMatchObject({ max: 10, count: 11 });
  });

  it('ARTIFACT_NOT_FORWARDABLE for the agent and the human; a forwardable artifact is forwarded', async () => {
    const w = (world = await createTestWorld());
    const other = await secondUser(w);
    const agent2 = await secondAgent(w);
    const received: ReceivedArtifact[] = [];
    w.user.on('artifact', (a) => received.push(a));
    await w.user.connect();
    const locked = await w.agent.artifacts.send(w.conversationId, {
      content: { kind: 'confirm', title: 'Pay 10 EUR?' },
    });
    const byAgent = await locked.forward([other.conversationId]).catch((e: unknown) => e);
    expect(isServiceError(byAgent, 'ARTIFACT_NOT_FORWARDABLE')).toBe(true);
    expect(isServiceError(byAgent) && byAgent.status).toBe(403);
    const lockedCopy = await waitFor(() => received.find((a) => a.artifactId === locked.artifactId));
    expect(lockedCopy.forwardable).toBe(false);
    const byHuman = await w.user
      .forward(lockedCopy.message, [agent2.conversationId])
      .catch((e: unknown) => e);
    expect(isServiceError(byHuman, 'ARTIFACT_NOT_FORWARDABLE')).toBe(true);
    const open = await w.agent.artifacts.send(w.conversationId, {
      content: { kind: 'confirm', title: 'Share?' },
      forwardable: true,
    });
    const openCopy = await waitFor(() => received.find((a) => a.artifactId === open.artifactId));
    const [copy] = await w.user.forward(openCopy.message, [agent2.conversationId]);
    expect(copy?.conversationId).toBe(agent2.conversationId);
    expect((await open.forward([other.conversationId])).length).toBe(1);
    await other.user.signOut();
  });
});

describe('reactions', () => {
  it('reaction.update both ways: the human reacts to the agent, the agent reacts to the human', async () => {
    const w = (world = await createTestWorld());
    const reactions: ReceivedReaction[] = [];
    const messages: string[] = [];
    w.user.on('reaction', (r) => reactions.push(r));
    w.user.on('message', (m) => messages.push(m.event));
    await w.user.connect();
    const sent = await w.agent.send(w.conversationId, 'hello');
    expect((await w.user.react(w.conversationId, sent.messageId, '👍')).delivered).toBe(true);
    const event = await w.waitForDelivery((e) => e.type === 'reaction.update');
    expect(event).toMatchObject({
      targetMessageId: sent.messageId,
      emoji: '👍',
      action: 'add',
      senderId: w.user.session!.userId,
      sealed: true,
      transport: 'websocket',
    });
    const fromUser = await w.sendAsUser('thanks');
    expect((await w.agent.react(w.conversationId, fromUser, '🎉')).delivered).toBe(true);
    const r = await waitFor(() => reactions[0]);
    expect(r).toMatchObject({ messageId: fromUser, emoji: '🎉', action: 'add', senderId: w.agentId });
    await w.agent.react(w.conversationId, fromUser, '🎉', { remove: true });
    expect((await waitFor(() => reactions[1])).action).toBe('remove');
    expect(messages).not.toContain('reaction.update');
  });

  it('refuses text as an emoji on the client and an unknown message at the service', async () => {
    const w = (world = await createTestWorld());
    const notEmoji = await w.user.react(w.conversationId, 'm-1', 'ok').catch((e: unknown) => e);
    expect(isValidationError(notEmoji)).toBe(true);
    const unknown = await w.user.react(w.conversationId, 'no-such-message', '👍').catch((e: unknown) => e);
    expect(isServiceError(unknown, 'MESSAGE_NOT_FOUND')).toBe(true);
  });

  it('webhook mode: registering a reaction.update handler warns that it never fires; reactions are not delivered', async () => {
    const warnings: string[] = [];
    const logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (m: string) => void warnings.push(m),
      error: () => undefined,
    };
    const w = (world = await createTestWorld({ agent: { mode: 'webhook', options: { logger } } }));
    w.agent.on('reaction.update', () => undefined);
    w.agent.on('artifact.expired', () => undefined);
    expect(warnings.filter((m) => m.includes('"reaction.update" is sent only over WebSocket'))).toHaveLength(
      1,
    );
    expect(warnings.some((m) => m.includes('"artifact.expired"'))).toBe(true);
    const sent = await w.agent.send(w.conversationId, 'hi');
    expect((await w.user.react(w.conversationId, sent.messageId, '👍')).delivered).toBe(false);
  });
});
