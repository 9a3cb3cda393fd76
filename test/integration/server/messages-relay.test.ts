import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKeys, open, ENVELOPE_REF_MAX_BYTES } from '../../../packages/sdk/src/crypto/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  addAgent,
  connectAgent,
  createTestAgent,
  createTestUser,
  nextOfType,
  openAs,
  sealAs,
  startAgentServer,
  systemSigningKey,
  type TestAgent,
  type TestUser,
} from '../../helpers/server-agents.js';
import { call, expectError } from '../../helpers/server-http.js';
import { WsProbe } from '../../helpers/server-ws.js';

let server: ReferenceServer;
let user: TestUser;
let agent: TestAgent;
let conversationId: string;
let systemKey: Uint8Array;

const asAgent = {
  get id() {
    return agent.agentId;
  },
  get keys() {
    return agent.keys;
  },
};
const asUser = {
  get id() {
    return user.userId;
  },
  get keys() {
    return user.keys;
  },
};

beforeAll(async () => {
  server = await startAgentServer();
  systemKey = await systemSigningKey(server);
});
afterAll(() => server.close());
beforeEach(async () => {
  user = await createTestUser(server);
  agent = await createTestAgent(server, user);
});

const agentSend = (body: unknown, token = agent.token) =>
  call(server, 'POST', `/agents/${agent.agentId}/messages`, { token, json: body });
const userSend = (wire: string, id = conversationId) =>
  call(server, 'POST', `/conversations/${id}/messages`, {
    token: user.accessToken,
    json: { wire_envelope: wire },
  });

describe('relations', () => {
  it('adding an agent delivers relation.established sealed by the system sender', async () => {
    const probe = await connectAgent(server, agent);
    conversationId = await addAgent(server, user, agent.agentId);
    const frame = await probe.next();
    expect(frame).toMatchObject({
      type: 'relation.established',
      version: 'v1',
      metadata: { conversation_id: conversationId, sender_id: 'system' },
      delivery_id: expect.any(String),
    });
    const opened = openAs(String(frame['wire_envelope']), asAgent, systemKey);
    expect(opened.senderId).toBe('system');
    expect(opened.payload).toMatchObject({
      type: 'relation.established',
      user_id: user.userId,
      conversation_id: conversationId,
    });
    // Adding again changes nothing (200, no second event).
    const again = await call(server, 'POST', '/conversations', {
      token: user.accessToken,
      json: { agent_id: agent.agentId },
    });
    expect(again.status).toBe(200);
    probe.close();
  });

  it('revoke → relation.revoked with payload.user_id and payload.conversation_id; then RELATION_REVOKED', async () => {
    conversationId = await addAgent(server, user, agent.agentId);
    const probe = await connectAgent(server, agent);
    await nextOfType(probe, 'relation.established');
    const del = await call(server, 'DELETE', `/conversations/${conversationId}`, { token: user.accessToken });
    expect(del.data).toMatchObject({ state: 'revoked' });
    const frame = await nextOfType(probe, 'relation.revoked');
    expect(openAs(String(frame['wire_envelope']), asAgent, systemKey).payload).toMatchObject({
      user_id: user.userId,
      conversation_id: conversationId,
    });
    const wire = sealAs(asAgent, [asUser], conversationId, { type: 'text', text: 'still there?' });
    expectError(
      await agentSend({ conversation_id: conversationId, wire_envelope: wire }),
      403,
      'RELATION_REVOKED',
    );
    expectError(
      await userSend(sealAs(asUser, [asAgent], conversationId, { type: 'text', text: 'x' })),
      403,
      'RELATION_REVOKED',
    );
    probe.close();
  });

  it('the platform suspends and restores: relation.suspended / relation.restored; sends refused meanwhile', async () => {
    conversationId = await addAgent(server, user, agent.agentId);
    const probe = await connectAgent(server, agent);
    await nextOfType(probe, 'relation.established');
    await server.control.suspendRelation(conversationId);
    expect((await probe.next()).type).toBe('relation.suspended');
    const wire = sealAs(asAgent, [asUser], conversationId, { type: 'text', text: 'hi' });
    const refused = await agentSend({ conversation_id: conversationId, wire_envelope: wire });
    expect(expectError(refused, 403, 'FORBIDDEN').params).toMatchObject({ reason: 'relation_suspended' });
    await server.control.restoreRelation(conversationId);
    expect((await probe.next()).type).toBe('relation.restored');
    expect((await agentSend({ conversation_id: conversationId, wire_envelope: wire })).status).toBe(201);
    probe.close();
  });

  it('a user cannot add an agent without keys (AGENT_NOT_REGISTERED) or without their own backup', async () => {
    const bare = await createTestAgent(server, user, { register: false });
    expectError(
      await call(server, 'POST', '/conversations', {
        token: user.accessToken,
        json: { agent_id: bare.agentId },
      }),
      404,
      'AGENT_NOT_REGISTERED',
    );
    const noBackup = await createTestUser(server, false);
    expectError(
      await call(server, 'POST', '/conversations', {
        token: noBackup.accessToken,
        json: { agent_id: agent.agentId },
      }),
      404,
      'KEY_BACKUP_NOT_FOUND',
    );
  });
});

describe('messages', () => {
  beforeEach(async () => {
    conversationId = await addAgent(server, user, agent.agentId);
  });

  it('user → agent: message.new reaches the agent’s WebSocket and opens to the payload', async () => {
    const probe = await connectAgent(server, agent);
    await nextOfType(probe, 'relation.established');
    const wire = sealAs(asUser, [asAgent], conversationId, { type: 'text', text: 'Hello agent' });
    const res = await userSend(wire);
    expect(res.status, res.text).toBe(201);
    const frame = await nextOfType(probe, 'message.new');
    expect(frame['metadata']).toMatchObject({ conversation_id: conversationId, sender_id: user.userId });
    const opened = openAs(String(frame['wire_envelope']), asAgent, user.keys.signing.publicKey);
    expect(opened.payload).toEqual({ type: 'text', text: 'Hello agent' });
    expect(opened.messageId).toBe(res.data['message_id']);
    probe.close();
  });

  it('agent → user: 201, pushed to the user’s WebSocket and readable from the REST inbox', async () => {
    const userWs = await WsProbe.authenticated(server.wsUrl, user.accessToken);
    const wire = sealAs(asAgent, [asUser], conversationId, { type: 'text', text: 'Hello human' });
    const res = await agentSend({ conversation_id: conversationId, wire_envelope: wire });
    expect(res.status, res.text).toBe(201);
    expect(res.data).toMatchObject({
      conversation_id: conversationId,
      sender_id: agent.agentId,
      seq: expect.any(Number),
    });
    const pushed = await nextOfType(userWs, 'message.new');
    expect(pushed['wire_envelope']).toBe(wire);
    const inbox = await call(server, 'GET', `/conversations/${conversationId}/messages?after=0`, {
      token: user.accessToken,
    });
    const list = (inbox.json as { data: { wire_envelope: string; seq: number }[] }).data;
    expect(list).toHaveLength(1);
    expect(openAs(list[0]!.wire_envelope, asUser, agent.keys.signing.publicKey).payload).toEqual({
      type: 'text',
      text: 'Hello human',
    });
    const after = await call(
      server,
      'GET',
      `/conversations/${conversationId}/messages?after=${list[0]!.seq}`,
      { token: agent.token },
    );
    expect(after.data).toEqual([]);
    // Sending the same envelope again is idempotent.
    expect((await agentSend({ conversation_id: conversationId, wire_envelope: wire })).status).toBe(200);
    userWs.close();
  });

  it('refuses a plaintext payload with a clear VALIDATION_ERROR', async () => {
    const res = await agentSend({
      conversation_id: conversationId,
      payload: { type: 'text', text: 'plain' },
    });
    const err = expectError(res, 400, 'VALIDATION_ERROR');
    expect(err.params).toMatchObject({ field: 'payload', reason: 'plaintext_payload' });
    expect(err.message).toMatch(/seal/);
  });

  it('INVALID_ENVELOPE: not base64, malformed, wrong sender, wrong conversation, missing or unknown recipient', async () => {
    const cases: [string, string][] = [
      ['not_base64', 'not base64!'],
      ['malformed', Buffer.from('AMSE plus garbage').toString('base64')],
      ['sender_mismatch', sealAs(asUser, [asUser, asAgent], conversationId, { type: 'text', text: 'x' })],
      ['conversation_mismatch', sealAs(asAgent, [asUser], 'other-conversation', { type: 'text', text: 'x' })],
      ['missing_recipient', sealAs(asAgent, [asAgent], conversationId, { type: 'text', text: 'x' })],
      [
        'unknown_recipient',
        sealAs(asAgent, [asUser, { id: 'stranger', keys: generateKeys() }], conversationId, {
          type: 'text',
          text: 'x',
        }),
      ],
      [
        'missing_recipient',
        sealAs(asAgent, [{ id: user.userId, keys: generateKeys() }], conversationId, {
          type: 'text',
          text: 'x',
        }),
      ],
    ];
    for (const [reason, wire] of cases) {
      server.advanceTime(1_000); // stay under 5 sends per second
      const res = await agentSend({ conversation_id: conversationId, wire_envelope: wire });
      expect(expectError(res, 400, 'INVALID_ENVELOPE').params, reason).toMatchObject({ reason });
    }
  });

  it('CONVERSATION_FORBIDDEN for a conversation the agent is not in (or that does not exist)', async () => {
    const otherUser = await createTestUser(server);
    const otherAgent = await createTestAgent(server, otherUser);
    const otherConversation = await addAgent(server, otherUser, otherAgent.agentId);
    const wire = sealAs(asAgent, [asUser], otherConversation, { type: 'text', text: 'x' });
    expectError(
      await agentSend({ conversation_id: otherConversation, wire_envelope: wire }),
      403,
      'CONVERSATION_FORBIDDEN',
    );
    expectError(
      await agentSend({ conversation_id: 'nope', wire_envelope: wire }),
      403,
      'CONVERSATION_FORBIDDEN',
    );
    expectError(await userSend(wire, otherConversation), 404, 'CONVERSATION_NOT_FOUND');
  });

  it('5 sends per second per agent: the 6th is 429 MESSAGE_RATE_LIMITED with Retry-After and retry_after_ms', async () => {
    const send = () =>
      agentSend({
        conversation_id: conversationId,
        wire_envelope: sealAs(asAgent, [asUser], conversationId, { type: 'text', text: 'tick' }),
      });
    for (let i = 0; i < 5; i++) expect((await send()).status).toBe(201);
    const refused = await send();
    const err = expectError(refused, 429, 'MESSAGE_RATE_LIMITED');
    expect(err.params).toMatchObject({ retry_after_ms: 1000 });
    expect(refused.headers.get('retry-after')).toBe('1');
    // Invalid requests count too (every authenticated request is a request).
    server.advanceTime(999);
    expectError(await agentSend({ conversation_id: conversationId }), 429, 'MESSAGE_RATE_LIMITED');
    server.advanceTime(1);
    expect((await send()).status).toBe(201);
  });

  it('a 1.5 MB message reaches a WebSocket agent by ref and opens after GET /r2/<object_key>', async () => {
    const probe = await connectAgent(server, agent);
    await nextOfType(probe, 'relation.established');
    const text = 'x'.repeat(1_500_000);
    const res = await userSend(sealAs(asUser, [asAgent], conversationId, { type: 'text', text }));
    expect(res.status, res.text).toBe(201);
    const frame = await nextOfType(probe, 'message.new');
    expect(frame['wire_envelope']).toBeNull();
    const ref = frame['ref'] as { object_key: string; size: number; type: string };
    expect(ref.type).toBe('r2');
    const got = await fetch(`${server.url}/r2/${ref.object_key}`, {
      headers: { authorization: `Bearer ${agent.token}` },
    });
    expect(got.status).toBe(200);
    const bytes = new Uint8Array(await got.arrayBuffer());
    expect(bytes.length).toBe(ref.size);
    const opened = open(bytes, {
      recipientId: agent.agentId,
      keys: agent.keys,
      senderKey: user.keys.signing.publicKey,
      maxEnvelopeBytes: ENVELOPE_REF_MAX_BYTES,
    });
    expect(opened.payload['text']).toBe(text);
    probe.close();
  });

  it('a sender is told when its message expires after 24 h in an offline agent’s queue', async () => {
    const wire = sealAs(asUser, [asAgent], conversationId, { type: 'text', text: 'anyone?' });
    const sent = await userSend(wire);
    expect(sent.status).toBe(201);
    server.advanceTime(24 * 3_600_000);
    const fresh = (await server.control.accessToken(user.userId)).accessToken;
    let notice: { sender_id: string; wire_envelope: string } | undefined;
    for (let i = 0; i < 50 && notice === undefined; i++) {
      const inbox = await call(server, 'GET', `/conversations/${conversationId}/messages`, { token: fresh });
      notice = (inbox.json as { data: { sender_id: string; wire_envelope: string }[] }).data.find(
        (m) => m.sender_id === 'system',
      );
    }
    expect(notice).toBeDefined();
    const opened = openAs(notice!.wire_envelope, asUser, systemKey);
    expect(opened.payload).toMatchObject({
      type: 'delivery.failed',
      message_id: sent.data['message_id'],
      recipient_id: agent.agentId,
      reason: 'pending_expired',
    });
  });

  it('L1 restricted agents get AGENT_RESTRICTED when sending', async () => {
    await server.control.setGovernance(agent.agentId, 'L1', 'spam reports');
    const wire = sealAs(asAgent, [asUser], conversationId, { type: 'text', text: 'x' });
    const res = await agentSend({ conversation_id: conversationId, wire_envelope: wire });
    expect(expectError(res, 403, 'AGENT_RESTRICTED').params).toMatchObject({
      level: 'L1',
      reason: 'spam reports',
    });
  });
});
