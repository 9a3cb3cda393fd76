/**
 * The merged features in group conversations, end to end against the
 * reference server on 127.0.0.1 (real HTTP and WebSocket, virtual server
 * time): artifacts (a tool request refused with `tool_not_supported_in_group`,
 * a confirmation answered by the first human), reactions relayed to every
 * other member, forwarding into and out of groups, and streams received by
 * every connected human (`client_offline` when none is, `peer_revoked` when
 * the agent is removed mid-stream), and data grants refused in a group.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Agent,
  AnyAgentEvent,
  IncomingMessage as AgentMessage,
} from '../../../packages/sdk/src/agent/index.js';
import type {
  ReceivedMessage,
  StreamEnded,
  StreamFailure,
  StreamStarted,
  UserClient,
} from '../../../packages/sdk/src/client/index.js';
import type { ReceivedArtifact, ReceivedReaction } from '../../../packages/sdk/src/client/user-artifacts.js';
import { isServiceError, StreamError } from '../../../packages/sdk/src/core/errors/index.js';
import { systemClock, type Clock } from '../../../packages/sdk/src/core/clock.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { newUserClient, signUp } from '../../helpers/client-setup.js';
import { newAgent, startWorld, waitFor } from '../../helpers/agent-world.js';

let server: ReferenceServer;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  server = await startWorld({ virtualTime: true });
});
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await server.close();
});

/** The server's virtual time with real timers: clients judge freshness on the server's time. */
const serverTime: Clock = {
  now: () => server.clock.now(),
  setTimeout: (fn, ms, o) => systemClock.setTimeout(fn, ms, o),
  clearTimeout: (h) => systemClock.clearTimeout(h),
};

interface Human {
  readonly client: UserClient;
  readonly userId: string;
  readonly messages: ReceivedMessage[];
  readonly artifacts: ReceivedArtifact[];
  readonly reactions: ReceivedReaction[];
  readonly starts: StreamStarted[];
  readonly ends: StreamEnded[];
  readonly streamErrors: StreamFailure[];
}

async function human(): Promise<Human> {
  const { client, userId } = await signUp(server, newUserClient(server, { clock: serverTime }));
  const h: Human = {
    client,
    userId,
    messages: [],
    artifacts: [],
    reactions: [],
    starts: [],
    ends: [],
    streamErrors: [],
  };
  client.on('message', (m) => void h.messages.push(m));
  client.on('artifact', (a) => void h.artifacts.push(a));
  client.on('reaction', (r) => void h.reactions.push(r));
  client.on('streamStart', (e) => void h.starts.push(e));
  client.on('streamEnd', (e) => void h.ends.push(e));
  client.on('streamError', (e) => void h.streamErrors.push(e));
  await client.connect();
  closers.push(() => client.disconnect());
  return h;
}

interface Bot {
  readonly agent: Agent;
  readonly agentId: string;
  readonly messages: AgentMessage[];
  readonly events: AnyAgentEvent[];
}

async function bot(owner: Human, name: string): Promise<Bot> {
  const created = await owner.client.createAgent({ name });
  const agent = newAgent(server, created, { clock: serverTime });
  await agent.connect();
  const b: Bot = { agent, agentId: created.agentId, messages: [], events: [] };
  agent.on('message.new', (m) => void b.messages.push(m));
  agent.on('event', (e) => void b.events.push(e));
  closers.push(() => agent.close({ timeoutMs: 1000 }));
  return b;
}

/** A group of `owner`, the agents and the other humans (who join by invite code). */
async function groupOf(owner: Human, agents: readonly Bot[], others: readonly Human[]): Promise<string> {
  const g = await owner.client.groups.create({ name: 'Crew', agentIds: agents.map((a) => a.agentId) });
  for (const h of others)
    await h.client.groups.join((await owner.client.groups.invite(g.conversationId)).code);
  if (others.length > 0) await owner.client.groups.admit(g.conversationId); // into the signed roster
  return g.conversationId;
}

const kindOf = (m: { payload: unknown }): unknown => (m.payload as { type?: unknown }).type;

describe('artifacts in a group', () => {
  it('tool_not_supported_in_group: a tool request among two humans is denied by the service at once', async () => {
    const ada = await human();
    const bob = await human();
    const scribe = await bot(ada, 'Scribe');
    const id = await groupOf(ada, [scribe], [bob]);

    const tool = await scribe.agent.artifacts.send(id, {
      content: {
        kind: 'tool_request',
        title: 'Read GPS',
        tool: { name: 'gps', arguments: {}, timeout_ms: 5_000 },
      },
    });
    const outcome = await tool.response({ timeoutMs: 3_000 });
    expect(outcome).toMatchObject({
      status: 'denied',
      reason: 'tool_not_supported_in_group',
      by: 'service',
      artifactId: tool.artifactId,
    });
    expect(outcome.event).toMatchObject({ senderId: 'system', sealed: true, conversationId: id });
    expect(await scribe.agent.artifacts.status(tool.artifactId)).toMatchObject({
      state: 'denied',
      reason: 'tool_not_supported_in_group',
      conversationId: id,
    });
    // Never delivered: neither human got it.
    await ada.client.send(id, { type: 'text', text: 'after the tool' });
    await waitFor(() => bob.messages.some((m) => kindOf(m) === 'text'), 'the later message at Bob');
    expect([...ada.artifacts, ...bob.artifacts]).toEqual([]);
  });

  it('a tool request in a group with one human is delivered like in a one-to-one conversation', async () => {
    const ada = await human();
    const scribe = await bot(ada, 'Scribe');
    const id = await groupOf(ada, [scribe], []);
    const tool = await scribe.agent.artifacts.send(id, {
      content: {
        kind: 'tool_request',
        title: 'Scan',
        tool: { name: 'scan', arguments: {}, timeout_ms: 5_000 },
      },
    });
    await waitFor(() => ada.artifacts.length === 1, 'the tool request at Ada');
    expect(ada.artifacts[0]).toMatchObject({ conversationId: id, senderId: scribe.agentId });
    await ada.artifacts[0]!.approve({ result: 'ok' });
    expect(await tool.response({ timeoutMs: 3_000 })).toMatchObject({
      status: 'approved',
      data: { result: 'ok' },
    });
  });

  it('a confirmation reaches every human; the first answer wins, a later one is not accepted', async () => {
    const ada = await human();
    const bob = await human();
    const scribe = await bot(ada, 'Scribe');
    const id = await groupOf(ada, [scribe], [bob]);

    const handle = await scribe.agent.artifacts.send(id, {
      content: { kind: 'confirm', title: 'Ship the release?' },
    });
    await waitFor(
      () => ada.artifacts.length === 1 && bob.artifacts.length === 1,
      'the artifact at both humans',
    );
    expect(bob.artifacts[0]).toMatchObject({
      artifactId: handle.artifactId,
      conversationId: id,
      revision: 1,
    });

    expect(await bob.artifacts[0]!.approve()).toEqual({ accepted: true, state: 'answered', reason: null });
    expect(await ada.artifacts[0]!.deny('user_rejected')).toEqual({
      accepted: false,
      state: 'answered',
      reason: null,
    });
    const outcome = await handle.response({ timeoutMs: 3_000 });
    expect(outcome).toMatchObject({ status: 'approved', revision: 1 });
    expect(outcome.event).toMatchObject({ senderId: bob.userId, conversationId: id, sealed: true });
    // Exactly one answer reached the agent.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(scribe.events.filter((e) => e.type === 'artifact_response')).toHaveLength(1);
  });

  it('an agent outside the group cannot send an artifact into it (CONVERSATION_FORBIDDEN)', async () => {
    const ada = await human();
    const outsider = await bot(ada, 'Outsider');
    const id = await groupOf(ada, [], []);
    const err = await outsider.agent.artifacts
      .send(id, { content: { kind: 'confirm', title: 'Let me in?' } })
      .catch((e: unknown) => e);
    expect(isServiceError(err, 'CONVERSATION_FORBIDDEN')).toBe(true);
  });

  it('permission_revoked: removing the agent from the group denies its open artifacts', async () => {
    const ada = await human();
    const scribe = await bot(ada, 'Scribe');
    const id = await groupOf(ada, [scribe], []);
    const handle = await scribe.agent.artifacts.send(id, { content: { kind: 'confirm', title: 'Pending' } });
    await waitFor(() => ada.artifacts.length === 1, 'the artifact at Ada');
    await ada.client.groups.remove(id, scribe.agentId);
    expect(await handle.response({ timeoutMs: 3_000 })).toMatchObject({
      status: 'denied',
      reason: 'permission_revoked',
      by: 'service',
    });
    expect(await ada.artifacts[0]!.approve()).toMatchObject({ accepted: false, state: 'denied' });
  });
});

describe('reactions and forwarding in a group', () => {
  it('a reaction is relayed to every other member on a WebSocket', async () => {
    const ada = await human();
    const bob = await human();
    const scribe = await bot(ada, 'Scribe');
    const id = await groupOf(ada, [scribe], [bob]);

    const sent = await ada.client.send(id, { type: 'text', text: 'release notes are up' });
    expect((await bob.client.react(id, sent.messageId, '👍')).delivered).toBe(true);
    await waitFor(
      () => ada.reactions.length === 1 && scribe.events.some((e) => e.type === 'reaction.update'),
      'the reaction at Ada and the agent',
    );
    expect(ada.reactions[0]).toMatchObject({ messageId: sent.messageId, emoji: '👍', senderId: bob.userId });
    expect(scribe.events.find((e) => e.type === 'reaction.update')).toMatchObject({
      targetMessageId: sent.messageId,
      emoji: '👍',
      senderId: bob.userId,
      conversationId: id,
    });
    // The reactor does not get its own reaction back.
    expect(bob.reactions).toEqual([]);

    // The agent reacts: both humans get it.
    expect((await scribe.agent.react(id, sent.messageId, '🎉')).delivered).toBe(true);
    await waitFor(() => ada.reactions.length === 2 && bob.reactions.length === 1, 'the agent reaction');
    expect(bob.reactions[0]).toMatchObject({ emoji: '🎉', senderId: scribe.agentId });

    // Nobody else connected: not delivered. An unknown message: MESSAGE_NOT_FOUND.
    const solo = await groupOf(ada, [], []);
    const mine = await ada.client.send(solo, { type: 'text', text: 'note to self' });
    expect((await ada.client.react(solo, mine.messageId, '👀')).delivered).toBe(false);
    const unknown = await bob.client.react(id, 'no-such-message', '👍').catch((e: unknown) => e);
    expect(isServiceError(unknown, 'MESSAGE_NOT_FOUND')).toBe(true);
  });

  it('forwards from a group to another group of the forwarder (users and agents); not to a group it is not in', async () => {
    const ada = await human();
    const bob = await human();
    const cyd = await human();
    const scribe = await bot(ada, 'Scribe');
    const first = await groupOf(ada, [scribe], [bob]);
    const second = await groupOf(ada, [scribe], [cyd]);

    await bob.client.send(first, { type: 'text', text: 'the plan' });
    await waitFor(
      () => ada.messages.length === 1 && scribe.messages.length === 1,
      'the message at Ada and the agent',
    );
    const copies = await ada.client.forward(ada.messages[0]!, [second]);
    expect(copies).toHaveLength(1);
    expect(copies[0]!.conversationId).toBe(second);
    await waitFor(
      () => cyd.messages.some((m) => kindOf(m) === 'forwarded') && scribe.messages.length === 2,
      'the copy at Cyd and the agent',
    );
    const atCyd = cyd.messages.find((m) => kindOf(m) === 'forwarded')!;
    expect(atCyd).toMatchObject({ conversationId: second, senderId: ada.userId });
    expect(atCyd.payload).toMatchObject({
      type: 'forwarded',
      original: { conversation_id: first, sender_id: bob.userId },
    });

    // The agent forwards the message it received in the first group into the second.
    const byAgent = await scribe.agent.forward(scribe.messages[0]!, [second]);
    expect(byAgent[0]!.conversationId).toBe(second);
    await waitFor(
      () => cyd.messages.filter((m) => kindOf(m) === 'forwarded').length === 2,
      'the agent copy at Cyd',
    );

    // Cyd is not in the first group: neither source nor target.
    const notSource = await cyd.client.forward(atCyd, [first]).catch((e: unknown) => e);
    expect(isServiceError(notSource, 'CONVERSATION_NOT_FOUND')).toBe(true);
  });
});

describe('streams in a group', () => {
  it('a stream reaches every connected human member, verified on each side', async () => {
    const ada = await human();
    const bob = await human();
    const scribe = await bot(ada, 'Scribe');
    const id = await groupOf(ada, [scribe], [bob]);

    const w = await scribe.agent.stream(id, { coalesceMs: 0 });
    for (const piece of ['Ship', 'ping ', 'now']) await w.write(piece);
    const summary = await w.end('!');
    await waitFor(() => ada.ends.length === 1 && bob.ends.length === 1, 'the end at both humans');
    for (const h of [ada, bob]) {
      expect(h.ends[0]).toMatchObject({
        text: 'Shipping now!',
        conversationId: id,
        senderId: scribe.agentId,
      });
      expect(h.starts.map((s) => s.streamId)).toEqual([w.streamId]);
      expect(h.streamErrors).toEqual([]);
    }
    expect(summary.text).toBe('Shipping now!');
  });

  it('client_offline: no human member connected at the start', async () => {
    const ada = await human();
    const bob = await human();
    const scribe = await bot(ada, 'Scribe');
    const id = await groupOf(ada, [scribe], [bob]);
    await ada.client.disconnect();
    await bob.client.disconnect();
    const err = await scribe.agent.stream(id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamError);
    expect((err as StreamError).reason).toBe('client_offline');
    // One human back is enough.
    await bob.client.connect();
    const w = await scribe.agent.stream(id, { coalesceMs: 0 });
    await w.end('hi');
    await waitFor(() => bob.ends.length === 1, 'the end at Bob');
    expect(ada.ends).toEqual([]);
  });

  it('peer_revoked: the agent is removed from the group mid-stream; an agent outside is refused', async () => {
    const ada = await human();
    const scribe = await bot(ada, 'Scribe');
    const id = await groupOf(ada, [scribe], []);
    const w = await scribe.agent.stream(id, { coalesceMs: 0 });
    await w.write('a');
    await waitFor(() => ada.starts.length === 1, 'the start at Ada');
    await ada.client.groups.remove(id, scribe.agentId);
    const err = await (async () => {
      for (let i = 0; i < 50; i += 1) {
        try {
          await w.write('b');
          await new Promise((resolve) => setTimeout(resolve, 10));
        } catch (e) {
          return e;
        }
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(StreamError);
    expect((err as StreamError).reason).toBe('peer_revoked');
    await waitFor(() => ada.streamErrors.length === 1, 'the stream error at Ada');
    const outside = await scribe.agent.stream(id).catch((e: unknown) => e);
    expect(isServiceError(outside, 'CONVERSATION_FORBIDDEN')).toBe(true);
  });
});

describe('streams in a group: a human leaves mid-stream', () => {
  it('the leaver gets no further frame; the others keep the stream to its verified end', async () => {
    const ada = await human();
    const bob = await human();
    const scribe = await bot(ada, 'Scribe');
    const id = await groupOf(ada, [scribe], [bob]);
    const bobDeltas: number[] = [];
    bob.client.on('streamDelta', (d) => void bobDeltas.push(d.seq));
    const w = await scribe.agent.stream(id, { coalesceMs: 0 });
    await w.write('before ');
    await waitFor(() => bobDeltas.length === 1, 'the first delta at Bob');
    await bob.client.groups.leave(id);
    await w.write('after');
    await w.end();
    await waitFor(() => ada.ends.length === 1, 'the end at Ada');
    expect(ada.ends[0]!.text).toBe('before after');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(bobDeltas).toEqual([1]);
    expect(bob.ends).toEqual([]);
  });
});

describe('data grants and groups', () => {
  it('a grant is asked in a one-to-one conversation: a group is VALIDATION_ERROR group_conversation', async () => {
    const ada = await human();
    const scribe = await bot(ada, 'Scribe');
    const outsider = await bot(ada, 'Outsider');
    const id = await groupOf(ada, [scribe], []);
    const ask = (b: Bot) =>
      b.agent.grants
        .request({ conversationId: id, scope: 'profile.read', windowSeconds: 60, reason: 'your name' })
        .catch((e: unknown) => e);
    const inGroup = await ask(scribe);
    expect(isServiceError(inGroup, 'VALIDATION_ERROR')).toBe(true);
    expect((inGroup as { params: Record<string, unknown> }).params).toMatchObject({
      field: 'conversation_id',
      reason: 'group_conversation',
    });
    expect(isServiceError(await ask(outsider), 'CONVERSATION_FORBIDDEN')).toBe(true);
  });
});
