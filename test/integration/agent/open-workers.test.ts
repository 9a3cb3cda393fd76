/**
 * The Agent opening envelopes on worker threads (option `openWorkers`),
 * against the reference server over real sockets: handlers see each
 * conversation's messages in order with many conversations in flight, a
 * bad envelope opened in a worker is the same typed `decryptFailure`, and
 * a trickle under `'auto'` starts no thread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toBase64, utf8 } from '../../../packages/sdk/src/core/encoding.js';
import { sealPlaintext } from '../../../packages/sdk/src/crypto/seal.js';
import type { DecryptFailure, IncomingMessage } from '../../../packages/sdk/src/agent/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { createAccount, newAgent, startWorld, UserSide, waitFor } from '../../helpers/agent-world.js';
import { createTestUser } from '../../helpers/server-agents.js';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startWorld();
});
afterAll(() => server.close());

describe('Agent with openWorkers', () => {
  it('keeps each conversation in order with many conversations opened on worker threads', async () => {
    const account = await createAccount(server);
    const agent = newAgent(server, account, { openWorkers: 2, concurrency: 8 });
    const seen = new Map<string, number[]>();
    agent.on('message.new', async (msg: IncomingMessage) => {
      const [, n] = (msg.text ?? '').split(':');
      const list = seen.get(msg.conversationId) ?? [];
      list.push(Number(n));
      seen.set(msg.conversationId, list);
      // Handlers that take a little time let later envelopes be opened meanwhile.
      await new Promise((resolve) => setTimeout(resolve, Number(n) % 3));
    });
    await agent.connect();
    const sides: UserSide[] = [];
    for (let c = 0; c < 8; c++) {
      // One conversation per user and agent: eight users.
      const user = c === 0 ? account.owner : await createTestUser(server);
      const side = new UserSide(server, user, account.agentId);
      await side.addAgent();
      sides.push(side);
    }
    expect(new Set(sides.map((s) => s.conversationId)).size).toBe(8);
    const perConversation = 12;
    await Promise.all(
      sides.map(async (side, c) => {
        for (let i = 0; i < perConversation; i++) await side.send({ type: 'text', text: `${c}:${i}` });
      }),
    );
    const total = (): number => [...seen.values()].reduce((n, list) => n + list.length, 0);
    await waitFor(() => total() === 8 * perConversation, 'every message', 30_000);
    for (const side of sides) {
      expect(seen.get(side.conversationId)).toEqual(Array.from({ length: perConversation }, (_, i) => i));
    }
    const stats = agent.stats();
    expect(stats.openWorkers.openedInWorkers).toBeGreaterThan(0);
    expect(stats.openWorkers.workers).toBeGreaterThan(0);
    expect(stats.decryptFailures).toBe(0);
    expect(await agent.close()).toEqual({ drained: true, abandoned: 0 });
    expect(agent.stats().openWorkers.workers).toBe(0);
  });

  it('reports an envelope a worker could not open as a typed decryptFailure and goes on', async () => {
    const account = await createAccount(server);
    const agent = newAgent(server, account, { openWorkers: 1 });
    const failures: DecryptFailure[] = [];
    const texts: string[] = [];
    agent.on('decryptFailure', (f) => void failures.push(f));
    agent.on('message.new', (m) => void texts.push(m.text ?? ''));
    await agent.connect();
    const side = new UserSide(server, account.owner, account.agentId);
    await side.addAgent();
    // Sealed and signed as it should be, but the content is not a JSON object: the parse check fails.
    const notJson = toBase64(
      sealPlaintext(utf8('not json'), {
        sender: { id: account.owner.userId, signing: account.owner.keys.signing },
        recipients: (await side.agentKeys()).map((publicKey) => ({ id: account.agentId, publicKey })),
        conversationId: side.conversationId,
      }),
    );
    expect((await side.postWire(notJson)).status).toBeLessThan(300);
    await side.send({ type: 'text', text: 'after the bad one' });
    await waitFor(() => failures.length === 1 && texts.length === 1, 'the failure and the next message');
    expect(failures[0]).toMatchObject({ code: 'DECRYPT_FAILURE', reason: 'parse', transport: 'websocket' });
    expect(failures[0]!.error.name).toBe('CryptoError');
    expect(texts).toEqual(['after the bad one']);
    expect(agent.stats()).toMatchObject({ decryptFailures: 1, decryptFailuresByReason: { parse: 1 } });
    // Both messages (and the sealed relation.established before them) were opened in the worker.
    expect(agent.stats().openWorkers).toMatchObject({ openedInThread: 0, reopened: 0 });
    expect(agent.stats().openWorkers.openedInWorkers).toBeGreaterThanOrEqual(2);
    await agent.close();
  });

  it("opens a trickle on the calling thread under 'auto': no worker starts", async () => {
    const account = await createAccount(server);
    const agent = newAgent(server, account, { openWorkers: 'auto' });
    const texts: string[] = [];
    agent.on('message.new', (m) => void texts.push(m.text ?? ''));
    await agent.connect();
    const side = new UserSide(server, account.owner, account.agentId);
    await side.addAgent();
    for (let i = 0; i < 5; i++) {
      await side.send({ type: 'text', text: `t${i}` });
      await waitFor(() => texts.length === i + 1, `message ${i}`);
    }
    // The five messages and the sealed relation.established, each alone in flight.
    expect(agent.stats().openWorkers).toMatchObject({ workers: 0, openedInWorkers: 0, reopened: 0 });
    expect(agent.stats().openWorkers.openedInThread).toBeGreaterThanOrEqual(5);
    await agent.close();
  });
});
