/**
 * The owner client against the reference server on 127.0.0.1 (real HTTP and
 * WebSocket, virtual server time): sign-up with key backup, sign-in, refresh
 * past the 300 s access token, devices, agents, conversations, and a message
 * round trip user → agent → user, opened on both sides.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserClient, type ReceivedMessage } from '../../../packages/sdk/src/client/index.js';
import {
  isCryptoError,
  isServiceError,
  isValidationError,
} from '../../../packages/sdk/src/core/errors/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  ACCOUNT_PASSWORD,
  CHEAP_BACKUP,
  newUserClient,
  nextEvent,
  openAsAgent,
  PROTECTION_PASSWORD,
  recordingLogger,
  signUp,
  startAgent,
} from '../../helpers/client-setup.js';
import { startAgentServer } from '../../helpers/server-agents.js';

let server: ReferenceServer;

beforeAll(async () => {
  server = await startAgentServer();
});
afterAll(async () => {
  await server.close();
});

describe('UserClient: sign-up, sign-in, refresh, devices', () => {
  it('registers with the production Argon2id cost, and a second device unlocks the same keys', async () => {
    // The one test that keeps the default Argon2id parameters (64 MiB, t 3, p 4).
    const first = new UserClient({ baseUrl: server.url });
    const { email, userId } = await signUp(server, first);
    expect((await server.control.account(email))?.hasKeyBackup).toBe(true);

    const second = new UserClient({ baseUrl: server.url });
    const info = await second.login({
      email,
      accountPassword: ACCOUNT_PASSWORD,
      turnstileToken: 'pass',
      protectionPassword: PROTECTION_PASSWORD,
    });
    expect(info.userId).toBe(userId);
    expect(second.keyFingerprint).toBe(first.keyFingerprint);
    expect(info.deviceId).not.toBe(first.deviceId);
  });

  it('refuses a wrong protection password with KEY_BACKUP_PASSWORD_INVALID', async () => {
    const { email } = await signUp(server);
    const other = newUserClient(server);
    await other.login({ email, accountPassword: ACCOUNT_PASSWORD, turnstileToken: 'pass' });
    const err = await other.unlockKeys('not-the-protection-password').catch((e: unknown) => e);
    expect(isCryptoError(err, 'KEY_BACKUP_PASSWORD_INVALID')).toBe(true);
  });

  it('signs in with a code, refreshes after 300 s through the cookie, lists devices', async () => {
    const { email, userId } = await signUp(server);
    const client = newUserClient(server, { deviceName: 'Laptop' });
    await client.sendCode({ email, scene: 'login', turnstileToken: 'pass' });
    await client.loginWithCode({
      email,
      code: server.control.latestCode(email, 'login')!,
      protectionPassword: PROTECTION_PASSWORD,
    });
    const before = await client.devices();
    server.advanceTime(301_000); // the access token is now expired
    const devices = await client.devices(); // TOKEN_EXPIRED → refresh with the cookie → retried
    expect(devices.map((d) => d.deviceId).sort()).toEqual(before.map((d) => d.deviceId).sort());
    expect(devices.find((d) => d.current)?.name).toBe('Laptop');
    expect(client.session?.userId).toBe(userId);
  });

  it('turns a refused refresh into TOKEN_EXPIRED and clears the session', async () => {
    const { client } = await signUp(server);
    server.advanceTime(31 * 24 * 3600_000); // past the 30-day refresh token
    const err = await client.devices().catch((e: unknown) => e);
    expect(isServiceError(err, 'TOKEN_EXPIRED')).toBe(true);
    expect(client.session).toBeUndefined();
  });

  it('checks the protection password before creating the account', async () => {
    const client = newUserClient(server);
    const err = await client
      .register({
        email: 'short@example.com',
        code: '123456',
        accountPassword: ACCOUNT_PASSWORD,
        displayName: 'Ada',
        deviceLocale: 'en-GB',
        turnstileToken: 'pass',
        protectionPassword: 'short',
      })
      .catch((e: unknown) => e);
    expect(isValidationError(err)).toBe(true);
    expect(await server.control.account('short@example.com')).toBeUndefined();
  });
});

describe('UserClient: agents and a message round trip', () => {
  it('creates an agent, adds it, sends; the agent opens and replies; the user receives it', async () => {
    const logger = recordingLogger();
    const { client, userId } = await signUp(server, newUserClient(server, { logger }));
    const created = await client.createAgent({ name: 'Helper' });
    const agent = await startAgent(server, created.agentId, created.token);
    expect(agent.events.map((e) => e.type)).toEqual(['keys.created', 'keys.registered']);

    const conversation = await client.addAgent(created.agentId);
    expect(conversation).toMatchObject({ userId, agentId: created.agentId, state: 'established' });

    await client.connect();
    const sent = await client.send(conversation.conversationId, { type: 'text', text: 'hello agent' });
    expect(sent.created).toBe(true);
    // A send whose signal is already aborted rejects with its reason and posts nothing.
    const reason = new Error('cancelled');
    await expect(
      client.send(
        conversation.conversationId,
        { type: 'text', text: 'never posted' },
        { signal: AbortSignal.abort(reason) },
      ),
    ).rejects.toBe(reason);

    // The agent reads its inbox and opens the message with its own keys.
    const inbox = await agent.api.messages(conversation.conversationId);
    const opened = await openAsAgent(agent, inbox[0]!.wire_envelope, Date.now());
    expect(opened.payload).toEqual({ type: 'text', text: 'hello agent' });
    expect(opened.senderId).toBe(userId);

    // The agent replies with its sender; the user receives it over the WebSocket.
    const arrived = nextEvent<[ReceivedMessage]>(client, 'message');
    const reply = await agent.sender.send(conversation.conversationId, { type: 'text', text: 'hello owner' });
    const [message] = await arrived;
    expect(message).toMatchObject({
      event: 'message.new',
      messageId: reply.messageId,
      senderId: created.agentId,
      conversationId: conversation.conversationId,
      payload: { type: 'text', text: 'hello owner' },
    });

    // The inbox shows both messages, opened (the user's own was wrapped to itself too).
    const page = await client.messages(conversation.conversationId);
    expect(page.failed).toEqual([]);
    expect(page.messages.map((m) => (m.payload.type === 'text' ? m.payload.text : undefined))).toEqual([
      'hello agent',
      'hello owner',
    ]);
    await client.disconnect();

    const text = logger.text();
    expect(text).not.toContain(created.token);
    expect(text).not.toContain('hello');
    expect(text).not.toContain(PROTECTION_PASSWORD);
  });

  it('renews the WebSocket on auth.expiring and keeps receiving', async () => {
    const { client } = await signUp(server);
    const created = await client.createAgent({ name: 'Renew' });
    const agent = await startAgent(server, created.agentId, created.token);
    const { conversationId } = await client.addAgent(created.agentId);
    await client.connect();
    let disconnects = 0;
    client.on('disconnected', () => (disconnects += 1));
    const expiring = nextEvent<[{ expiresInSeconds: number | undefined }]>(client, 'authExpiring');
    const renewed = nextEvent(client, 'tokenRenewed');
    server.advanceTime(241_000); // auth.expiring (60 s before expiry) → authExpiring, refresh → auth.renew
    expect((await expiring)[0].expiresInSeconds).toBe(60);
    await renewed;
    server.advanceTime(120_000); // past the original expiry: without the renewal the server would close 4003
    const arrived = nextEvent<[ReceivedMessage]>(client, 'message');
    await agent.sender.send(conversationId, { type: 'text', text: 'still here' });
    expect((await arrived)[0].payload).toMatchObject({ type: 'text', text: 'still here' });
    expect(disconnects).toBe(0);
    await client.disconnect();
  });

  it('reports session.invalidated when the device is revoked elsewhere', async () => {
    const { client, email } = await signUp(server);
    await client.connect();
    const other = newUserClient(server);
    await other.login({ email, accountPassword: ACCOUNT_PASSWORD, turnstileToken: 'pass' });
    const invalidated = nextEvent(client, 'sessionInvalidated');
    const failed = nextEvent(client, 'connectionFailed');
    await other.revokeDevice(client.deviceId);
    await invalidated;
    await failed;
    const err = await client.devices().catch((e: unknown) => e);
    expect(isServiceError(err, 'TOKEN_EXPIRED')).toBe(true);
  });

  it('regenerates and revokes agent tokens, sets and removes a webhook', async () => {
    const { client } = await signUp(server);
    const created = await client.createAgent({ name: 'Tokens' });
    const normal = await client.regenerateAgentToken(created.agentId);
    expect(normal.emergency).toBe(false);
    expect(normal.previousTokenValidUntilMs).toBe(server.clock.now() + 7 * 24 * 3600_000);
    expect((await client.agent(created.agentId)).keyRotationPending).toBe(true);
    const emergency = await client.regenerateAgentToken(created.agentId, { emergency: true });
    expect(emergency.token).not.toBe(normal.token);
    expect(await client.revokeAgentToken(created.agentId)).toEqual({ disconnected: 0 });
    const hook = await client.setAgentWebhook(created.agentId, 'https://example.com/hook');
    expect(hook.url).toBe('https://example.com/hook');
    expect(hook.secret.length).toBeGreaterThanOrEqual(43);
    await client.removeAgentWebhook(created.agentId);
    expect((await client.agent(created.agentId)).view.delivery_mode).toBe('websocket');
    expect(CHEAP_BACKUP.params.m).toBe(64);
  });
});
