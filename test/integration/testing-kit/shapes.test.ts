/**
 * Worlds of any shape (issue #27): several users and agents, a webhook
 * agent wired by the world, a group, clients added later, all on the
 * world's clock; test-friendly defaults (no signal handlers, no exit code).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestWorld,
  TestWorldError,
  type TestWorld,
  type WorldAgent,
} from '../../../packages/dev/src/testing/index.js';

let world: TestWorld;
let sigtermListeners = 0;
const echo = (a: WorldAgent): void =>
  void a.agent.on('message.new', (m) => m.reply(`${a.name}: ${m.text ?? ''}`).then(() => undefined));

beforeAll(async () => {
  sigtermListeners = process.listenerCount('SIGTERM');
  world = await createTestWorld({
    users: ['Ada', 'Bob'],
    agents: [{ name: 'Helper' }, { name: 'Hooked', mode: 'webhook' }],
    groups: [{ name: 'Club', members: ['Ada', 'Bob', 'Helper'] }],
  });
  for (const a of world.agents) echo(a);
});
afterAll(() => world.close());

describe('createTestWorld({ users, agents, groups })', () => {
  it('signs every user up, connected, and gives each agent a conversation with its owner', () => {
    expect(world.users.map((u) => u.name)).toEqual(['Ada', 'Bob']);
    expect(world.agents.map((a) => [a.name, a.mode, a.owner.name])).toEqual([
      ['Helper', 'websocket', 'Ada'],
      ['Hooked', 'webhook', 'Ada'],
    ]);
    expect(world.user).toBe(world.users[0]!.client);
    expect(world.agentId).toBe(world.agents[0]!.agentId);
  });

  it('the webhook agent, wired by the world, answers', async () => {
    const hooked = world.named('Hooked') as WorldAgent;
    await world.sendAsUser('ping', { conversationId: hooked.conversationId });
    const reply = await world.waitForReply({ kind: 'text', from: hooked });
    expect(reply.text).toBe('Hooked: ping');
    expect((await world.waitForDelivery(undefined, { agent: hooked })).transport).toBe('webhook');
  });

  it('a group of two users and an agent: a member writes, the agent answers everyone', async () => {
    const club = world.groups[0]!;
    const [ada, bob] = world.users;
    await world.sendAsUser('hello club', { user: bob!, conversationId: club.conversationId });
    const toAda = await world.waitForReply({ kind: 'text', to: ada!, conversationId: club.conversationId });
    const toBob = await world.waitForReply({ kind: 'text', to: bob!, conversationId: club.conversationId });
    expect([toAda.text, toBob.text]).toEqual(['Helper: hello club', 'Helper: hello club']);
  });

  it('addUser and addAgent later, on the world clock: still accepted after a jump past the replay window', async () => {
    await world.advanceTime(10 * 60_000);
    const cleo = await world.addUser('Cleo');
    const late = await world.addAgent({ name: 'Late', owner: 'Cleo' });
    echo(late);
    await world.sendAsUser('after the jump', { user: cleo, conversationId: late.conversationId });
    expect((await world.waitForReply({ kind: 'text', from: late })).text).toBe('Late: after the jump');
  });

  it('agents install no signal handlers and leave the exit code alone', () => {
    expect(process.listenerCount('SIGTERM')).toBe(sigtermListeners);
    expect(process.exitCode ?? 0).toBe(0);
  });

  it('migrateUser runs both sides of a device migration in one process; the new device holds the keys', async () => {
    const [ada, bob] = world.users;
    const moved = await world.migrateUser(bob, { deviceName: 'Bob phone', extras: { theme: 'dark' } });
    expect(moved.verification).toMatch(/^\d{3} \d{3}$/);
    expect(moved.keyFingerprint).toBe(bob!.client.keyFingerprint);
    expect(moved.client.keyFingerprint).toBe(moved.keyFingerprint);
    expect(moved.extras).toEqual({ theme: 'dark' });
    // The new device writes in the group with the migrated keys; the agent opens it and answers.
    const { conversationId } = world.groups[0]!;
    await moved.client.send(conversationId, { type: 'text', text: 'from my new phone' });
    const reply = await world.waitForReply({ kind: 'text', to: ada!, conversationId });
    expect(reply.text).toBe('Helper: from my new phone');
  });

  it('disconnectUser resolves once the service noticed: a stream to that user is refused client_offline', async () => {
    const [ada, bob] = world.users;
    const helper = world.agents[0]!;
    const { conversationId } = world.groups[0]!; // Helper with Ada and Bob
    await world.disconnectUser(bob);
    expect(world.server.control.openConnections(bob!.userId)).toBe(0);
    await world.disconnectUser(ada);
    const err = await helper.agent.stream(conversationId).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'client_offline' });
  });

  it('names what it cannot find', async () => {
    expect(() => world.named('Nobody')).toThrow(TestWorldError);
    await expect(world.addGroup({ name: 'Ghosts', members: ['Ada', 'Nobody'] })).rejects.toThrow(
      /no member named Nobody/,
    );
  });
});
