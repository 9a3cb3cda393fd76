/**
 * A normal token regeneration: the old connection keeps working during the
 * grace, the agent moves to the new token (in place, or on restart) and
 * rotates its keys, and both the old and the new key open messages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingMessage, KeyLifecycleEvent } from '../../../packages/sdk/src/agent/index.js';
import { MemoryKeyStore } from '../../../packages/sdk/src/crypto/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { call } from '../../helpers/server-http.js';
import { createAccount, newAgent, startWorld, UserSide, waitFor } from '../../helpers/agent-world.js';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startWorld();
});
afterAll(() => server.close());

async function regenerate(account: { agentId: string; owner: { accessToken: string } }): Promise<string> {
  const res = await call(server, 'POST', `/agents/${account.agentId}/token/regenerate`, {
    token: account.owner.accessToken,
    json: { emergency: false },
  });
  expect(res.status, res.text).toBe(200);
  return String(res.data['token']);
}

describe('token regeneration with grace', () => {
  it('the old connection keeps working; renewToken() moves it in place and rotates the keys', async () => {
    const account = await createAccount(server);
    const agent = newAgent(server, account);
    const texts: string[] = [];
    const keyEvents: KeyLifecycleEvent[] = [];
    let connects = 0;
    agent.on('message.new', (m) => void texts.push(m.text ?? ''));
    agent.on('keys', (e) => void keyEvents.push(e));
    agent.on('connected', () => void (connects += 1));
    await agent.connect();
    const side = new UserSide(server, account.owner, account.agentId);
    await side.addAgent();

    const newToken = await regenerate(account);
    await side.send({ type: 'text', text: 'during grace, old token' });
    await waitFor(() => texts.length === 1, 'the first message');

    const oldKey = (await side.agentKeys())[0]!;
    await agent.renewToken(newToken);
    expect(keyEvents.map((e) => e.type)).toEqual([
      'keys.created',
      'keys.registered',
      'keys.rotated',
      'keys.registered',
    ]);
    side.forgetKeys();
    const [current, ...retired] = await side.agentKeys();
    expect(retired).toEqual([oldKey]);
    expect(current).not.toEqual(oldKey);
    await side.send({ type: 'text', text: 'to the new key' });
    await waitFor(() => texts.length === 2, 'the second message');
    expect(texts).toEqual(['during grace, old token', 'to the new key']);
    expect(connects).toBe(1); // renewed in place, no reconnect
    expect(agent.state).toBe('running');
    await agent.close();
  });

  it('after a restart on the new token, both the retired and the new key decrypt', async () => {
    const account = await createAccount(server);
    const store = new MemoryKeyStore();
    const first = newAgent(server, account, { keyStore: store });
    await first.connect();
    const side = new UserSide(server, account.owner, account.agentId);
    await side.addAgent();
    const oldKey = (await side.agentKeys())[0]!;
    const newToken = await regenerate(account);
    await first.close();
    // Sent while the agent is away, sealed to the old key only (still current at the service).
    const queued = await side.send({ type: 'text', text: 'sealed to the old key' });

    const second = newAgent(server, { ...account, token: newToken }, { keyStore: store });
    const seen: IncomingMessage[] = [];
    second.on('message.new', (m) => void seen.push(m));
    await second.connect();
    await waitFor(() => seen.length === 1, 'the queued message');
    side.forgetKeys();
    const [current, ...retired] = await side.agentKeys();
    expect(retired).toEqual([oldKey]);
    await side.send({ type: 'text', text: 'sealed to the new key' }, {});
    const onlyNew = await side.seal({ type: 'text', text: 'new key only' }, { keys: [current!] });
    expect((await side.postWire(onlyNew)).status).toBe(201);
    await waitFor(() => seen.length === 3, 'the new messages');
    expect(seen.map((m) => m.text)).toEqual([
      'sealed to the old key',
      'sealed to the new key',
      'new key only',
    ]);
    expect(seen[0]!.messageId).toBe(queued);
    expect(second.stats().decryptFailures).toBe(0);
    await second.close();
  });
});
