/**
 * Sending against the reference server: the service's 5 messages per second
 * per agent against the client-side limiter and retries (a real-time
 * server), typed refusals, and re-sealing when a recipient's key rotated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentApi } from '../../../packages/sdk/src/agent/api.js';
import { createKeyDirectory } from '../../../packages/sdk/src/messaging/key-directory.js';
import { createMessageSender } from '../../../packages/sdk/src/messaging/sender.js';
import { isRateLimitError, isServiceError } from '../../../packages/sdk/src/core/errors/index.js';
import { createRestClient } from '../../../packages/sdk/src/transport/rest/client.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  newUserClient,
  openAsAgent,
  recordingLogger,
  signUp,
  startAgent,
  type TestAgentRuntime,
} from '../../helpers/client-setup.js';
import { startAgentServer } from '../../helpers/server-agents.js';

let realTime: ReferenceServer;
let virtual: ReferenceServer;

beforeAll(async () => {
  [realTime, virtual] = await Promise.all([startAgentServer({ virtualTime: false }), startAgentServer()]);
});
afterAll(async () => {
  await Promise.all([realTime.close(), virtual.close()]);
});

async function agentInConversation(server: ReferenceServer, name = 'Sender') {
  const owner = await signUp(server);
  const created = await owner.client.createAgent({ name });
  const agent = await startAgent(server, created.agentId, created.token);
  const { conversationId } = await owner.client.addAgent(created.agentId);
  return { owner, created, agent, conversationId };
}

/** A second process of the same agent: its own REST client (own limiter) and sender. */
function secondProcess(server: ReferenceServer, agent: TestAgentRuntime, maxAttempts: number) {
  const rest = createRestClient({ baseUrl: server.url, credentials: agent.token, retry: { maxAttempts } });
  const api = createAgentApi({ baseUrl: server.url, agentId: agent.agentId, token: agent.token, rest });
  const directory = createKeyDirectory({ api });
  return {
    rest,
    sender: createMessageSender({ api, agentId: agent.agentId, keys: () => agent.ring, directory }),
  };
}

describe('sending at the service limit (5 messages per second per agent)', () => {
  it('sends 20 messages at once: the client-side limiter queues them, every one succeeds', async () => {
    const { agent, conversationId } = await agentInConversation(realTime);
    const texts = Array.from({ length: 20 }, (_, i) => `burst ${i}`);
    const results = await Promise.allSettled(
      texts.map((text) => agent.sender.send(conversationId, { type: 'text', text })),
    );
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const stored = await agent.api.messages(conversationId, { limit: 50 });
    expect(stored).toHaveLength(20);
  });

  it('a send aborted before the limiter lets it through rejects with the reason and never reaches the service', async () => {
    const { agent, conversationId } = await agentInConversation(realTime, 'Aborter');
    const first = Array.from({ length: 5 }, (_, i) =>
      agent.sender.send(conversationId, { type: 'text', text: `first ${i}` }),
    );
    const controller = new AbortController();
    const queued = agent.sender.send(
      conversationId,
      { type: 'text', text: 'never sent' },
      { signal: controller.signal },
    );
    const reason = new Error('the user cancelled');
    controller.abort(reason);
    await expect(queued).rejects.toBe(reason);
    await Promise.all(first);
    const stored = await agent.api.messages(conversationId, { limit: 50 });
    expect(stored).toHaveLength(5);
  });

  it('absorbs a 429 storm from two processes of one agent (10 msg/s offered): all succeed after retries', async () => {
    const { agent, conversationId } = await agentInConversation(realTime, 'Storm');
    const a = secondProcess(realTime, agent, 10);
    const b = secondProcess(realTime, agent, 10);
    let limited = 0;
    for (const p of [a, b])
      p.rest.on('rateLimited', (info) => (limited += info.code === 'MESSAGE_RATE_LIMITED' ? 1 : 0));
    const sends = Array.from({ length: 20 }, (_, i) =>
      (i % 2 === 0 ? a : b).sender.send(conversationId, { type: 'text', text: `storm ${i}` }),
    );
    const results = await Promise.allSettled(sends);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(limited).toBeGreaterThan(0);
    expect(await agent.api.messages(conversationId, { limit: 50 })).toHaveLength(20);
  });
});

describe('typed refusals', () => {
  it('surfaces MESSAGE_RATE_LIMITED as a RateLimitError once retries are spent', async () => {
    const { agent, conversationId } = await agentInConversation(virtual, 'NoRetry');
    const rest = createRestClient({
      baseUrl: virtual.url,
      credentials: agent.token,
      rateLimits: false,
      retry: { maxAttempts: 1 },
    });
    const api = createAgentApi({ baseUrl: virtual.url, agentId: agent.agentId, token: agent.token, rest });
    const sender = createMessageSender({
      api,
      agentId: agent.agentId,
      keys: () => agent.ring,
      directory: agent.directory,
    });
    await agent.directory.conversationMembers(conversationId); // warm the cache: only the posts count below
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => sender.send(conversationId, { type: 'text', text: `${i}` })),
    );
    const refused = results
      .filter((r) => r.status === 'rejected')
      .map((r) => (r as PromiseRejectedResult).reason);
    expect(refused).toHaveLength(1);
    expect(isRateLimitError(refused[0], 'MESSAGE_RATE_LIMITED')).toBe(true);
    expect((refused[0] as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(0);
  });

  it('surfaces RELATION_REVOKED after the user revoked the conversation', async () => {
    const { owner, agent, conversationId } = await agentInConversation(virtual, 'Revoked');
    await agent.sender.send(conversationId, { type: 'text', text: 'before' });
    await owner.client.revokeConversation(conversationId);
    const fresh = createMessageSender({
      api: agent.api,
      agentId: agent.agentId,
      keys: () => agent.ring,
      directory: createKeyDirectory({ api: agent.api }), // nothing cached: the user's keys are now refused
    });
    for (const sender of [agent.sender, fresh]) {
      const err = await sender.send(conversationId, { type: 'text', text: 'after' }).catch((e: unknown) => e);
      expect(isServiceError(err, 'RELATION_REVOKED')).toBe(true);
      expect((err as { status: number }).status).toBe(403);
    }
  });

  it('surfaces CONVERSATION_FORBIDDEN for a conversation the agent is not in', async () => {
    const first = await agentInConversation(virtual, 'Member');
    const other = await agentInConversation(virtual, 'Outsider');
    const err = await other.agent.sender
      .send(first.conversationId, { type: 'text', text: 'hi' })
      .catch((e: unknown) => e);
    expect(isServiceError(err, 'CONVERSATION_FORBIDDEN')).toBe(true);
  });
});

describe('a recipient key that rotated', () => {
  it('the user seals to the cached old key, is told it is stale, and seals again to the new one', async () => {
    const logger = recordingLogger();
    const { client } = await signUp(virtual, newUserClient(virtual, { logger }));
    const created = await client.createAgent({ name: 'Rotating' });
    const agent = await startAgent(virtual, created.agentId, created.token);
    const { conversationId } = await client.addAgent(created.agentId);
    await client.send(conversationId, { type: 'text', text: 'first' }); // caches the agent's key
    const { token } = await client.regenerateAgentToken(created.agentId, { emergency: true });
    const rotated = await startAgent(virtual, created.agentId, token, { store: agent.store });

    const sent = await client.send(conversationId, { type: 'text', text: 'second' });
    expect(logger.lines.some((l) => l.message.includes('sealing again'))).toBe(true);
    const stored = await rotated.api.messages(conversationId);
    const wire = stored.find((m) => m.message_id === sent.messageId)!.wire_envelope;
    expect((await openAsAgent(rotated, wire, Date.now())).payload['text']).toBe('second');
  });
});
