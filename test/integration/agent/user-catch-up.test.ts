/**
 * The UserClient catches up after every reconnect and renews its token
 * before it expires (reference server on virtual time; the user's socket
 * through the fault proxy where a connection must die):
 * - messages sent while it was disconnected arrive after the reconnect, once, in order;
 * - a message whose ack was lost comes again and is not emitted twice;
 * - delivery.failed notices produced by a 24 h jump (which also expires the
 *   token: close 4003) arrive after the reconnect;
 * - at 80 % of the token's lifetime (on the injected clock) the socket is
 *   renewed, and stays up past the old token's expiry;
 * - with `acks: false` frames carry no delivery id and live messages still arrive.
 */
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type {
  ReceivedMessage,
  UserClient,
  UserClientOptions,
} from '../../../packages/sdk/src/client/index.js';
import type { WebSocketConstructor } from '../../../packages/sdk/src/transport/ws/socket.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { FAST_RECONNECT, waitFor } from '../../helpers/agent-world.js';
import {
  newUserClient,
  nextEvent,
  signUp,
  startAgent,
  type TestAgentRuntime,
} from '../../helpers/client-setup.js';
import { startFaultProxy, type FaultProxy } from '../../helpers/fault-proxy.js';
import { startAgentServer } from '../../helpers/server-agents.js';

let server: ReferenceServer;
let proxy: FaultProxy;
const clients: UserClient[] = [];

beforeAll(async () => {
  server = await startAgentServer();
  proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: Number(new URL(server.url).port) } });
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.disconnect();
  proxy.refuse(false);
  proxy.heal();
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

/** Every frame the client's sockets received, parsed. */
function recordingSocket(frames: Record<string, unknown>[]): WebSocketConstructor {
  class Recording extends WebSocket {
    constructor(url: string) {
      super(url);
      this.on('message', (data) => frames.push(JSON.parse(String(data)) as Record<string, unknown>));
    }
  }
  return Recording as unknown as WebSocketConstructor;
}

interface Owner {
  readonly client: UserClient;
  readonly agent: TestAgentRuntime;
  readonly conversationId: string;
  readonly texts: string[];
  connects: number;
  disconnects: number[];
}

/** A signed-up user with an agent in a conversation, listening (not yet connected). */
async function owner(on: ReferenceServer, extra: Partial<UserClientOptions> = {}): Promise<Owner> {
  const { client } = await signUp(on, newUserClient(on, { backoff: FAST_RECONNECT, ...extra }));
  clients.push(client);
  const created = await client.createAgent({ name: 'Catch-up' });
  // The agent seals on the same clock as the user reads (the replay window compares them).
  const agent = await startAgent(
    on,
    created.agentId,
    created.token,
    extra.clock === undefined ? {} : { clock: extra.clock },
  );
  const { conversationId } = await client.addAgent(created.agentId);
  const o: Owner = { client, agent, conversationId, texts: [], connects: 0, disconnects: [] };
  client.on(
    'message',
    (m: ReceivedMessage) => void o.texts.push(String(m.payload.type === 'text' ? m.payload.text : undefined)),
  );
  client.on('connected', () => void (o.connects += 1));
  client.on('disconnected', ({ code }) => void o.disconnects.push(code));
  return o;
}

const viaProxy = (): Partial<UserClientOptions> => ({ webSocketUrl: `ws://127.0.0.1:${proxy.port}/ws` });

describe('UserClient: catch-up after a reconnect', () => {
  it('messages sent while disconnected arrive after the reconnect, once and in order', async () => {
    const o = await owner(server, viaProxy());
    await o.client.connect();
    await o.agent.sender.send(o.conversationId, { type: 'text', text: 'm0' });
    await waitFor(() => o.texts.length === 1, 'm0');
    proxy.refuse(true);
    const down = nextEvent(o.client, 'disconnected');
    expect(proxy.reset()).toBe(1);
    await down;
    for (const text of ['m1', 'm2', 'm3'])
      await o.agent.sender.send(o.conversationId, { type: 'text', text });
    proxy.refuse(false);
    await waitFor(() => o.texts.length === 4, 'm1–m3 after the reconnect');
    await o.agent.sender.send(o.conversationId, { type: 'text', text: 'm4' });
    await waitFor(() => o.texts.length === 5, 'm4');
    expect(o.texts).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    expect(o.connects).toBe(2);
  });

  it('a message whose ack was lost is sent again on the next connection and emitted once', async () => {
    const frames: Record<string, unknown>[] = [];
    const o = await owner(server, { ...viaProxy(), WebSocket: recordingSocket(frames) });
    await o.client.connect();
    const cut = proxy.partition('upstream', Infinity, { resetAfter: true }); // acks dropped
    const sent = await o.agent.sender.send(o.conversationId, { type: 'text', text: 'once' });
    await waitFor(() => o.texts.length === 1, 'the message');
    await new Promise((resolve) => setTimeout(resolve, 50)); // its ack batch left (into the partition)
    proxy.heal();
    await cut;
    await waitFor(() => o.connects === 2, 'the reconnect');
    const copies = (): number =>
      frames.filter((f) => f['message_id'] === sent.messageId && f['delivery_id'] !== undefined).length;
    await waitFor(() => copies() === 2, 'the redelivered copy');
    await o.agent.sender.send(o.conversationId, { type: 'text', text: 'after' });
    await waitFor(() => o.texts.length === 2, 'the next message');
    expect(o.texts).toEqual(['once', 'after']);
    expect(copies()).toBe(2);
  });

  it('delivery.failed notices produced by a 24 h jump (token expired, 4003) arrive after the reconnect', async () => {
    // The client reads on the service's clock, as real clocks agree within the replay window's skew.
    const o = await owner(server, { clock: server.virtualClock! });
    await o.client.connect();
    const notices: ReceivedMessage[] = [];
    o.client.on('message', (m) => void (m.event === 'delivery.failed' && notices.push(m)));
    const ids: string[] = [];
    for (const text of ['u1', 'u2', 'u3']) {
      ids.push((await o.client.send(o.conversationId, { type: 'text', text })).messageId);
    }
    server.advanceTime(24 * 3_600_000 + 1_000); // the agent never connected: its pending queue expires
    await waitFor(() => notices.length === 3, 'three notices');
    expect(o.disconnects).toEqual([4003]);
    expect(o.connects).toBe(2);
    expect(
      notices.map((n) => [
        n.senderId,
        n.conversationId,
        n.payload.type === 'delivery.failed' ? n.payload.message_id : undefined,
      ]),
    ).toEqual(ids.map((id) => ['system', o.conversationId, id]));
    expect(notices.map((n) => (n.payload.type === 'delivery.failed' ? n.payload.reason : undefined))).toEqual(
      ['pending_expired', 'pending_expired', 'pending_expired'],
    );
  });

  it('with acks: false, frames carry no delivery_id and live messages still arrive', async () => {
    const frames: Record<string, unknown>[] = [];
    const o = await owner(server, { acks: false, WebSocket: recordingSocket(frames) });
    await o.client.connect();
    await o.agent.sender.send(o.conversationId, { type: 'text', text: 'plain' });
    await waitFor(() => o.texts.length === 1, 'the message');
    expect(frames.map((f) => [f['type'], f['delivery_id']])).toEqual([
      ['auth.ok', undefined],
      ['message.new', undefined],
    ]);
  });
});

describe('UserClient: token renewal ahead of expiry', () => {
  let renewing: ReferenceServer;
  beforeAll(async () => {
    // The server's own auth.expiring would come only 1 s before expiry: the renewal must be the client's.
    renewing = await startAgentServer({ authExpiringNoticeMs: 1_000 });
  });
  afterAll(() => renewing.close());

  it('renews at 80 % of the 300 s lifetime on the injected clock and stays connected past the old expiry', async () => {
    const o = await owner(renewing, { clock: renewing.virtualClock! });
    await o.client.connect();
    let renewals = 0;
    o.client.on('tokenRenewed', () => void (renewals += 1));
    renewing.advanceTime(239_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(renewals).toBe(0);
    const renewed = nextEvent(o.client, 'tokenRenewed');
    renewing.advanceTime(1_000); // 240 s: 80 %
    await renewed;
    renewing.advanceTime(100_000); // 340 s: past the first token's expiry
    await o.agent.sender.send(o.conversationId, { type: 'text', text: 'still here' });
    await waitFor(() => o.texts.length === 1, 'the message');
    expect(o.texts).toEqual(['still here']);
    expect(renewals).toBe(1);
    expect(o.disconnects).toEqual([]);
    expect(o.connects).toBe(1);
  });
});
