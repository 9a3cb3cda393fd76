/**
 * Groups end to end against the reference server on 127.0.0.1 (real HTTP and
 * WebSocket, virtual server time): create, invite, join, messages to four
 * members (two humans on WebSockets, an agent on WebSocket, an agent on a
 * webhook), the two group events, leave and remove, every group error code
 * provoked for real, and public-key lookup limited to shared conversations.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Agent,
  AnyAgentEvent,
  IncomingMessage as AgentMessage,
} from '../../../packages/sdk/src/agent/index.js';
import type {
  GroupKeyRotatedEvent,
  GroupUpdatedEvent,
  ReceivedMessage,
  UserClient,
} from '../../../packages/sdk/src/client/index.js';
import {
  isRateLimitError,
  isServiceError,
  isValidationError,
} from '../../../packages/sdk/src/core/errors/index.js';
import { routePath, SERVICE_ROUTES } from '../../../packages/sdk/src/core/protocol/service-names.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { newUserClient, signUp } from '../../helpers/client-setup.js';
import { newAgent, startWorld, waitFor } from '../../helpers/agent-world.js';
import { systemClock, type Clock } from '../../../packages/sdk/src/core/clock.js';

let server: ReferenceServer;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  server = await startWorld({ virtualTime: true });
});

/** The server's virtual time with real timers: clients judge freshness on the server's time. */
const serverTime: Clock = {
  now: () => server.clock.now(),
  setTimeout: (fn, ms, o) => systemClock.setTimeout(fn, ms, o),
  clearTimeout: (h) => systemClock.clearTimeout(h),
};
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await server.close();
});

/** An HTTP server on 127.0.0.1:0 for an agent's webhook; records the event types it receives. */
async function hookServer(): Promise<{
  url: string;
  types: string[];
  use: (h: (req: IncomingMessage, res: ServerResponse) => void) => void;
}> {
  const types: string[] = [];
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const hook: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      types.push(String((JSON.parse(body.toString('utf8')) as { type?: unknown }).type));
      (req as { rawBody?: Uint8Array }).rawBody = new Uint8Array(body);
      if (handler === undefined) res.writeHead(503).end();
      else handler(req, res);
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => hook.close(resolve)));
  const { port } = hook.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, types, use: (h) => void (handler = h) };
}

interface Human {
  readonly client: UserClient;
  readonly userId: string;
  readonly messages: ReceivedMessage[];
  readonly updates: GroupUpdatedEvent[];
  readonly rotations: GroupKeyRotatedEvent[];
}

async function human(): Promise<Human> {
  const { client, userId } = await signUp(server, newUserClient(server, { clock: serverTime }));
  const h: Human = { client, userId, messages: [], updates: [], rotations: [] };
  client.on('message', (m) => void h.messages.push(m));
  client.on('groupUpdated', (e) => void h.updates.push(e));
  client.on('groupKeyRotated', (e) => void h.rotations.push(e));
  await client.connect();
  closers.push(() => client.disconnect());
  return h;
}

interface Bot {
  readonly agent: Agent;
  readonly agentId: string;
  readonly messages: AgentMessage[];
  readonly events: AnyAgentEvent[];
  readonly hookTypes?: string[];
}

function record(agent: Agent, agentId: string, hookTypes?: string[]): Bot {
  const bot: Bot = { agent, agentId, messages: [], events: [], ...(hookTypes ? { hookTypes } : {}) };
  agent.on('message.new', (m) => void bot.messages.push(m));
  agent.on('event', (e) => void bot.events.push(e));
  closers.push(() => agent.close({ timeoutMs: 1000 }));
  return bot;
}

async function wsBot(owner: Human, name: string): Promise<Bot> {
  const created = await owner.client.createAgent({ name });
  const agent = newAgent(server, created, { clock: serverTime });
  await agent.connect();
  return record(agent, created.agentId);
}

async function webhookBot(owner: Human, name: string): Promise<Bot> {
  const created = await owner.client.createAgent({ name });
  const agent = newAgent(server, created, { mode: 'webhook', clock: serverTime });
  await agent.connect();
  const hook = await hookServer();
  const { secret } = await server.control.setWebhook(created.agentId, { url: hook.url });
  hook.use(agent.webhook({ secret }).nodeHandler());
  return record(agent, created.agentId, hook.types);
}

const texts = (xs: readonly { payload: unknown }[]): unknown[] =>
  xs.map((x) => (x.payload as { text?: unknown }).text);

describe('groups: create, invite, join, messages to every member, events, leave, remove', () => {
  it('delivers to two humans, a WebSocket agent and a webhook agent, and keeps everyone informed', async () => {
    const ada = await human();
    const bob = await human();
    const wsAgent = await wsBot(ada, 'Scribe');
    const hookAgent = await webhookBot(ada, 'Archivist');

    const group = await ada.client.groups.create({
      name: 'Release crew',
      agentIds: [wsAgent.agentId, hookAgent.agentId],
    });
    expect(group.keyVersion).toBe(1);
    expect(group.ownerId).toBe(ada.userId);
    expect(group.members.map((m) => m.id)).toEqual([ada.userId, wsAgent.agentId, hookAgent.agentId]);
    expect(group.members.every((m) => m.hasKeys)).toBe(true);
    const id = group.conversationId;

    const invite = await ada.client.groups.invite(id);
    expect(invite.code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    // Typed loosely (lower case, no hyphens): the SDK parses it before sending.
    const joined = await bob.client.groups.join(invite.code.replaceAll('-', '').toLowerCase());
    expect(joined.conversationId).toBe(id);
    expect(joined.keyVersion).toBe(2);
    expect((await bob.client.groups.members(id)).map((m) => m.id)).toContain(bob.userId);
    // The owner admits Bob in a new signed roster version (the client also does it on the join event).
    await ada.client.groups.admit(id);
    expect((await bob.client.groups.roster(id)).members.map((m) => m.id)).toContain(bob.userId);

    // group.updated (joined) and system.group_key_rotated reach every member on a WebSocket.
    await waitFor(() => ada.rotations.length === 1 && bob.rotations.length === 1, 'rotation events to users');
    await waitFor(
      () => wsAgent.events.some((e) => e.type === 'system.group_key_rotated'),
      'rotation event to the WebSocket agent',
    );
    expect(ada.updates.map((u) => u.change)).toEqual(['created', 'joined']);
    expect(ada.updates[1]).toMatchObject({ conversationId: id, memberId: bob.userId, keyVersion: 2 });
    expect(ada.rotations[0]).toMatchObject({ keyVersion: 2, previousVersion: 1, reason: 'membership' });
    const agentUpdate = wsAgent.events.find(
      (e) => e.type === 'group.updated' && e.payload['change'] === 'joined',
    );
    expect(agentUpdate).toMatchObject({ senderId: 'system', sealed: true, conversationId: id });

    // One message, sealed once for all four, reaches the other three.
    await ada.client.send(id, { type: 'text', text: 'ship it?' });
    await waitFor(
      () => bob.messages.length === 1 && wsAgent.messages.length === 1 && hookAgent.messages.length === 1,
      'the message at every member',
    );
    expect(texts(bob.messages)).toEqual(['ship it?']);
    expect(wsAgent.messages[0]).toMatchObject({
      conversationId: id,
      senderId: ada.userId,
      transport: 'websocket',
    });
    expect(hookAgent.messages[0]).toMatchObject({
      conversationId: id,
      senderId: ada.userId,
      transport: 'webhook',
    });

    // An agent answers in the group: both humans and the other agent receive it.
    await wsAgent.messages[0]!.reply(`@${ada.userId} yes`);
    await waitFor(
      () => ada.messages.length === 1 && bob.messages.length === 2 && hookAgent.messages.length === 2,
      'the reply at every member',
    );
    expect(ada.messages[0]).toMatchObject({ senderId: wsAgent.agentId, conversationId: id });
    // The webhook agent never gets the WebSocket-only group events.
    expect(hookAgent.hookTypes!.filter((t) => t !== 'message.new' && t !== 'relation.established')).toEqual(
      [],
    );

    // The inbox of the group is readable by members.
    const page = await bob.client.messages(id);
    expect(texts(page.messages)).toEqual(['ship it?', `@${ada.userId} yes`]);

    // Bob leaves; Ada removes the webhook agent: the next message is for Ada and the WebSocket agent only.
    expect(await bob.client.groups.leave(id)).toEqual({ deleted: false });
    const after = await ada.client.groups.remove(id, hookAgent.agentId);
    expect(after?.members.map((m) => m.id)).toEqual([ada.userId, wsAgent.agentId]);
    expect(after?.keyVersion).toBe(4);
    await waitFor(() => ada.updates.length === 4, 'left and removed updates');
    expect(ada.updates.slice(2).map((u) => [u.change, u.memberId])).toEqual([
      ['left', bob.userId],
      ['removed', hookAgent.agentId],
    ]);
    expect(bob.updates.at(-1)).toMatchObject({ change: 'left', memberId: bob.userId });
    await ada.client.send(id, { type: 'text', text: 'just us' });
    await waitFor(() => wsAgent.messages.length === 2, 'the message after the changes');
    expect(bob.messages).toHaveLength(2);
    expect(hookAgent.messages).toHaveLength(2);
    const removed = await bob.client.groups.get(id).catch((e: unknown) => e);
    expect(isServiceError(removed, 'GROUP_NOT_FOUND')).toBe(true);
  });
});

describe('groups: error codes', () => {
  it('GROUP_NOT_FOUND for an unknown group and for a non-member', async () => {
    const ada = await human();
    const eve = await human();
    const unknown = await ada.client.groups.get('no-such-group').catch((e: unknown) => e);
    expect(isServiceError(unknown, 'GROUP_NOT_FOUND')).toBe(true);
    expect((unknown as { status?: number }).status).toBe(404);
    const g = await ada.client.groups.create({ name: 'Private' });
    const outsider = await eve.client.groups.invite(g.conversationId).catch((e: unknown) => e);
    expect(isServiceError(outsider, 'GROUP_NOT_FOUND')).toBe(true);
  });

  it('INVITE_CODE_NOT_FOUND for an unknown code, a used code and an expired code; bad text never sent', async () => {
    const ada = await human();
    const bob = await human();
    const eve = await human();
    const g = await ada.client.groups.create({ name: 'Invites' });
    const unknown = await bob.client.groups.join('0000-0000-0000').catch((e: unknown) => e);
    expect(isServiceError(unknown, 'INVITE_CODE_NOT_FOUND')).toBe(true);
    expect((unknown as { status?: number }).status).toBe(404);

    const { code } = await ada.client.groups.invite(g.conversationId);
    await bob.client.groups.join(code);
    const used = await eve.client.groups.join(code).catch((e: unknown) => e);
    expect(isServiceError(used, 'INVITE_CODE_NOT_FOUND')).toBe(true);

    const late = await ada.client.groups.invite(g.conversationId);
    server.advanceTime(7 * 24 * 3_600_000 + 1);
    const expired = await eve.client.groups.join(late.code).catch((e: unknown) => e);
    expect(isServiceError(expired, 'INVITE_CODE_NOT_FOUND')).toBe(true);

    const malformed = await eve.client.groups.join('not a code!').catch((e: unknown) => e);
    expect(isValidationError(malformed)).toBe(true);
  });

  it('GROUP_KEY_VERSION_CONFLICT on a stale version; rotateKey re-reads and retries', async () => {
    const ada = await human();
    const g = await ada.client.groups.create({ name: 'Rotations' });
    const first = await ada.client.groups.rotateKey(g.conversationId);
    expect(first).toMatchObject({ keyVersion: 2, attempts: 1 });
    const stale = await ada.client.groups
      .rotateKey(g.conversationId, { basedOnVersion: 1, maxAttempts: 1 })
      .catch((e: unknown) => e);
    expect(isServiceError(stale, 'GROUP_KEY_VERSION_CONFLICT')).toBe(true);
    expect((stale as { status?: number; params: Record<string, unknown> }).status).toBe(409);
    expect((stale as { params: Record<string, unknown> }).params['current_version']).toBe(2);
    const retried = await ada.client.groups.rotateKey(g.conversationId, { basedOnVersion: 1 });
    expect(retried).toMatchObject({ keyVersion: 3, attempts: 2 });
    await waitFor(() => ada.rotations.length === 2, 'requested rotation events');
    expect(ada.rotations.map((r) => [r.keyVersion, r.reason, r.rotatedBy])).toEqual([
      [2, 'requested', ada.userId],
      [3, 'requested', ada.userId],
    ]);
  });

  it('GROUP_KEY_ROTATION_LIMIT after 6 rotations in an hour, with Retry-After; accepted again after it (virtual time)', async () => {
    const ada = await human();
    const wsAgent = await wsBot(ada, 'Rotator');
    const g = await ada.client.groups.create({ name: 'Limits', agentIds: [wsAgent.agentId] });
    for (let i = 0; i < 6; i++) {
      await wsAgent.agent.groups.rotateKey(g.conversationId);
      server.advanceTime(60_000);
    }
    const refused = await wsAgent.agent.groups.rotateKey(g.conversationId).catch((e: unknown) => e);
    expect(isRateLimitError(refused)).toBe(true);
    expect(isServiceError(refused, 'GROUP_KEY_ROTATION_LIMIT')).toBe(true);
    const wait = (refused as { retryAfterMs?: number }).retryAfterMs!;
    // The first rotation leaves the window 1 h after it: 6 minutes have passed.
    expect(wait).toBeGreaterThan(53 * 60_000);
    expect(wait).toBeLessThanOrEqual(54 * 60_000);
    server.advanceTime(wait);
    expect((await wsAgent.agent.groups.rotateKey(g.conversationId)).keyVersion).toBe(8);
    await waitFor(
      () => wsAgent.events.filter((e) => e.type === 'system.group_key_rotated').length === 7,
      'seven rotation events at the agent',
    );
  });

  it('KEY_ENUMERATION_BLOCKED without a shared conversation; a shared group opens the lookup', async () => {
    const ada = await human();
    const eve = await human();
    const wsAgent = await wsBot(ada, 'Lookup');
    const keysOf = (client: UserClient, id: string) =>
      client.rest.get(routePath(SERVICE_ROUTES.lookupKeys, { principal_id: id }));
    const blocked = await keysOf(eve.client, ada.userId).catch((e: unknown) => e);
    expect(isServiceError(blocked, 'KEY_ENUMERATION_BLOCKED')).toBe(true);
    expect((blocked as { status?: number }).status).toBe(403);
    const agentBlocked = await wsAgent.agent.api.publicKeys(eve.userId).catch((e: unknown) => e);
    expect(isServiceError(agentBlocked, 'KEY_ENUMERATION_BLOCKED')).toBe(true);

    const g = await ada.client.groups.create({ name: 'Keys', agentIds: [wsAgent.agentId] });
    await eve.client.groups.join((await ada.client.groups.invite(g.conversationId)).code);
    await expect(keysOf(eve.client, ada.userId)).resolves.toMatchObject({ id: ada.userId, kind: 'user' });
    await expect(keysOf(eve.client, wsAgent.agentId)).resolves.toMatchObject({ kind: 'agent' });
    await expect(wsAgent.agent.api.publicKeys(eve.userId)).resolves.toMatchObject({ id: eve.userId });

    await eve.client.groups.leave(g.conversationId);
    const again = await keysOf(eve.client, ada.userId).catch((e: unknown) => e);
    expect(isServiceError(again, 'KEY_ENUMERATION_BLOCKED')).toBe(true);
  });

  it('a member agent without keys (emergency regeneration) does not stop the group: the others still get messages', async () => {
    const ada = await human();
    const bob = await human();
    const keyless = await wsBot(ada, 'Keyless');
    const g = await ada.client.groups.create({ name: 'Keyless member', agentIds: [keyless.agentId] });
    await bob.client.groups.join((await ada.client.groups.invite(g.conversationId)).code);
    await ada.client.groups.admit(g.conversationId); // the owner's signed roster admits bob (docs/groups.md)
    await ada.client.regenerateAgentToken(keyless.agentId, { emergency: true }); // keys invalid at once
    await ada.client.send(g.conversationId, { type: 'text', text: 'still here?' });
    await waitFor(() => bob.messages.length === 1, 'the message at the other human');
    expect(texts(bob.messages)).toEqual(['still here?']);
  });

  it('an agent joins by code, and the last human leaving deletes the group', async () => {
    const ada = await human();
    const wsAgent = await wsBot(ada, 'Joiner');
    const g = await ada.client.groups.create({ name: 'Agents join too' });
    const joined = await wsAgent.agent.groups.join((await ada.client.groups.invite(g.conversationId)).code);
    expect(joined.members.map((m) => [m.id, m.kind, m.role])).toEqual([
      [ada.userId, 'user', 'owner'],
      [wsAgent.agentId, 'agent', 'member'],
    ]);
    expect((await wsAgent.agent.groups.list()).map((x) => x.conversationId)).toEqual([g.conversationId]);
    await wsAgent.agent.send(g.conversationId, 'hello from the agent');
    await waitFor(() => ada.messages.length === 1, 'the agent message at the human');
    expect(await ada.client.groups.leave(g.conversationId)).toEqual({ deleted: true });
    const gone = await wsAgent.agent.groups.get(g.conversationId).catch((e: unknown) => e);
    expect(isServiceError(gone, 'GROUP_NOT_FOUND')).toBe(true);
  });
});
