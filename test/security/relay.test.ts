/**
 * The hostile relay itself, before any attack: a real conversation through
 * it works both ways (so every attack test starts from a working world), the
 * service it plays sees every byte yet no plaintext, and a frame it injects
 * reaches the client as if the service had sent it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceivedMessage } from '../../packages/sdk/src/client/index.js';
import { nextEvent } from '../helpers/client-setup.js';
import { startSecurityWorld, type SecurityWorld } from './world.js';

let world: SecurityWorld;

beforeAll(async () => {
  world = await startSecurityWorld();
  world.agent.on('message.new', async (msg) => {
    await msg.reply(`echo: ${msg.text ?? ''}`);
  });
});
afterAll(async () => {
  await world.close();
});

describe('the hostile relay', () => {
  it('carries a real conversation both ways over HTTP and WebSocket, and never sees its plaintext', async () => {
    const secret = 'the launch code is 7391-alpha';
    const reply = nextEvent<[ReceivedMessage]>(world.user.client, 'message');
    await world.user.client.send(world.conversationId, { type: 'text', text: secret });
    const [message] = await reply;
    expect(message.payload).toMatchObject({ type: 'text', text: `echo: ${secret}` });

    const channels = new Set(world.relay.seen.map((s) => s.channel));
    expect(channels).toEqual(new Set(['http-request', 'http-response', 'ws-up', 'ws-down']));
    const leaks = world.relay.seen.filter((s) => s.text.includes('7391-alpha'));
    expect(leaks).toEqual([]);
  });

  it('injects a frame of its own into the clients it carries', async () => {
    expect(world.relay.sockets.length).toBeGreaterThanOrEqual(2); // the agent's and the user's
    const injected = world.relay.inject({ type: 'relay.probe', nonce: 1 });
    expect(injected).toBe(world.relay.sockets.length);
  });
});
