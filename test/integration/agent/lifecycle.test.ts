/**
 * Graceful close (running handlers finish, a timeout abandons the rest),
 * decrypt failures over the wire, and a scan of everything the agent logged
 * and raised for its token and key material.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecryptFailure } from '../../../packages/sdk/src/agent/index.js';
import { toBase64 } from '../../../packages/sdk/src/core/encoding.js';
import type { AmsError } from '../../../packages/sdk/src/core/errors/index.js';
import { generateKeys, MemoryKeyStore, seal } from '../../../packages/sdk/src/crypto/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  createAccount,
  gate,
  newAgent,
  recordingLogger,
  startWorld,
  UserSide,
  waitFor,
} from '../../helpers/agent-world.js';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startWorld();
});
afterAll(() => server.close());

describe('graceful close', () => {
  it('stops taking events, lets the running handler finish (and reply), then resolves', async () => {
    const account = await createAccount(server);
    const agent = newAgent(server, account);
    const g = gate();
    const started: string[] = [];
    agent.on('message.new', async (m) => {
      started.push(m.text ?? '');
      await g.promise;
      await m.reply('done');
    });
    await agent.connect();
    const side = new UserSide(server, account.owner, account.agentId);
    await side.addAgent();
    await side.send({ type: 'text', text: 'long job' });
    await waitFor(() => started.length === 1, 'the handler to start');
    let closed = false;
    const closing = agent.close({ timeoutMs: 10_000 }).then((r) => ((closed = true), r));
    await waitFor(() => agent.state === 'closing', 'closing');
    expect(closed).toBe(false);
    await side.send({ type: 'text', text: 'after close' });
    g.open();
    expect(await closing).toEqual({ drained: true, abandoned: 0 });
    expect(agent.state).toBe('closed');
    expect(started[0]).toBe('long job');
    await expect(agent.connect()).rejects.toMatchObject({ code: 'CONFIGURATION_ERROR' });
    // The message sent while closing is never lost: handled before the socket ended, or kept by the service.
    await server.control.deliveryIdle();
    const pending = (await server.control.agent(account.agentId))?.pending_count;
    const handled = started.filter((t) => t === 'after close').length;
    expect(handled + Number(pending)).toBe(1);
  });

  it('after the timeout, events not started are abandoned and reported', async () => {
    const account = await createAccount(server);
    const agent = newAgent(server, account);
    const never = gate();
    let calls = 0;
    agent.on('message.new', async () => {
      calls += 1;
      await never.promise;
    });
    await agent.connect();
    const side = new UserSide(server, account.owner, account.agentId);
    await side.addAgent();
    for (const text of ['a', 'b', 'c']) await side.send({ type: 'text', text });
    await waitFor(() => calls === 1 && agent.stats().received === 4, 'all three to arrive');
    expect(await agent.close({ timeoutMs: 100 })).toEqual({ drained: false, abandoned: 2 });
    expect(calls).toBe(1);
    never.open();
  });
});

describe('decrypt failures and secrets', () => {
  it('an undecryptable message is a typed decryptFailure; others go on; nothing secret is printed or raised', async () => {
    const account = await createAccount(server);
    const log = recordingLogger();
    const keyStore = new MemoryKeyStore();
    const agent = newAgent(server, account, { logger: log, keyStore });
    const failures: DecryptFailure[] = [];
    const errors: AmsError[] = [];
    const texts: string[] = [];
    agent.on('decryptFailure', (f) => void failures.push(f));
    agent.on('error', (e) => void errors.push(e));
    agent.on('message.new', (m) => {
      texts.push(m.text ?? '');
      if (m.text === 'throw') throw new Error(`handler failed on ${account.token}`);
    });
    await agent.connect();
    const side = new UserSide(server, account.owner, account.agentId);
    const conversationId = await side.addAgent();
    await side.send({ type: 'text', text: 'before' });
    const [agentKey] = await side.agentKeys();
    const forged = seal(
      { type: 'text', text: 'forged' },
      {
        sender: { id: account.owner.userId, signing: generateKeys().signing },
        recipients: [{ id: account.agentId, publicKey: agentKey! }],
        conversationId,
      },
    );
    expect((await side.postWire(forged)).status).toBe(201);
    await side.send({ type: 'text', text: 'throw' });
    await side.send({ type: 'text', text: 'after' });
    await waitFor(() => texts.length === 3 && failures.length === 1, 'all messages');
    expect(texts).toEqual(['before', 'throw', 'after']);
    expect(failures[0]).toMatchObject({
      code: 'DECRYPT_FAILURE',
      reason: 'signature',
      eventType: 'message.new',
      conversationId,
    });
    expect(agent.stats()).toMatchObject({
      decryptFailures: 1,
      decryptFailuresByReason: { signature: 1 },
      handlerErrors: 1,
    });
    expect(errors.map((e) => e.code)).toEqual(['HANDLER_FAILED']);
    await agent.close();

    const ring = (await keyStore.load())!;
    const secrets = [
      account.token,
      toBase64(ring.current.keys.encryption.privateKey),
      toBase64(ring.current.keys.signing.privateKey),
    ];
    const raised = [...errors, ...failures.map((f) => f.error)].map(
      (e) => `${e.message} ${JSON.stringify(e.toJSON())} ${String(e.stack)}`,
    );
    const everything = [...log.lines, ...raised].join('\n');
    expect(log.lines.length).toBeGreaterThan(5);
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(everything).not.toMatch(/hsk_[A-Za-z0-9]{40}/);
    expect(everything).not.toContain('forged');
  });
});
