/**
 * Helpers for part 2 of the reference server: users with key backups,
 * agents with registered keys, WebSocket agents, conversations, and sealing /
 * opening envelopes the way the SDK does.
 */
import { expect } from 'vitest';
import { fromBase64, toBase64 } from '../../packages/sdk/src/core/encoding.js';
import {
  generateKeys,
  open,
  seal,
  type AgentKeys,
  type OpenedEnvelope,
} from '../../packages/sdk/src/crypto/index.js';
import {
  buildKeyProof,
  type KeyChallenge,
  type ReferenceServer,
  type ReferenceServerOptions,
} from '../../packages/dev/src/testing/index.js';
import { call, startTestServer, uniqueEmail, type ApiResponse } from './server-http.js';
import { WsProbe, type Frame } from './server-ws.js';

/** Cheap bcrypt for tests that create many agents (one suite keeps the production cost 10). */
export const TEST_BCRYPT_COST = 4;

/** Starts a dev server in virtual time with cheap password and token hashing. */
export function startAgentServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  return startTestServer({ agentTokenBcryptCost: TEST_BCRYPT_COST, ...options });
}

/** A user with a key backup and an access token. */
export interface TestUser {
  readonly userId: string;
  readonly deviceId: string;
  readonly accessToken: string;
  readonly keys: AgentKeys;
}

/** An agent with its token and (when registered) its keys. */
export interface TestAgent {
  readonly agentId: string;
  token: string;
  keys: AgentKeys;
  readonly owner: TestUser;
}

const b64 = (n: number): string => toBase64(new Uint8Array(n).fill(7));

/** Creates a user through the control API and uploads a key backup with fresh keys. */
export async function createTestUser(server: ReferenceServer, withBackup = true): Promise<TestUser> {
  const userId = await server.control.createUser({ email: uniqueEmail('u'), password: 'password-123' });
  const t = await server.control.accessToken(userId);
  const keys = generateKeys();
  if (withBackup) {
    const res = await call(server, 'POST', '/keys/backup', {
      token: t.accessToken,
      json: {
        backup_a: b64(60),
        backup_b: b64(60),
        argon2_salt: b64(32),
        argon2_params: { m: 65_536, t: 3, p: 4 },
        public_key: toBase64(keys.encryption.publicKey),
        signing_public_key: toBase64(keys.signing.publicKey),
        device_id: t.deviceId,
      },
    });
    expect(res.status, res.text).toBe(201);
  }
  return { userId, deviceId: t.deviceId, accessToken: t.accessToken, keys };
}

/** Fetches a challenge and builds the proof fields for `keys`. */
export async function proofFor(server: ReferenceServer, agentId: string, token: string, keys: AgentKeys) {
  const res = await call(server, 'GET', `/agents/${agentId}/keys/challenge`, { token });
  expect(res.status, res.text).toBe(200);
  return buildKeyProof(agentId, keys, res.data as unknown as KeyChallenge);
}

/** Registers `keys` for the agent (challenge + proof). */
export async function registerKeys(
  server: ReferenceServer,
  agentId: string,
  token: string,
  keys: AgentKeys,
): Promise<ApiResponse> {
  const json = await proofFor(server, agentId, token, keys);
  return call(server, 'PUT', `/agents/${agentId}/keys`, { token, json });
}

/** Creates an agent for `owner` over REST and (by default) registers fresh keys. */
export async function createTestAgent(
  server: ReferenceServer,
  owner: TestUser,
  options: { register?: boolean; name?: string } = {},
): Promise<TestAgent> {
  const res = await call(server, 'POST', '/agents', {
    token: owner.accessToken,
    json: { name: options.name ?? 'Helper' },
  });
  expect(res.status, res.text).toBe(201);
  const agent: TestAgent = {
    agentId: String(res.data['agent_id']),
    token: String(res.data['token']),
    keys: generateKeys(),
    owner,
  };
  if (options.register !== false) {
    const reg = await registerKeys(server, agent.agentId, agent.token, agent.keys);
    expect(reg.status, reg.text).toBe(201);
  }
  return agent;
}

/** Opens an agent WebSocket and sends its auth frame; resolves with the probe and the answer. */
export async function agentSocket(
  server: ReferenceServer,
  agent: { agentId: string; token: string },
  extra: Record<string, unknown> = {},
): Promise<{ probe: WsProbe; answer: Frame }> {
  const probe = await WsProbe.open(server.wsUrl);
  probe.send({ type: 'auth', agent_id: agent.agentId, token: agent.token, ...extra });
  return { probe, answer: await probe.next() };
}

/** An authenticated agent WebSocket. */
export async function connectAgent(server: ReferenceServer, agent: { agentId: string; token: string }) {
  const { probe, answer } = await agentSocket(server, agent);
  expect(answer).toEqual({ type: 'auth.ok' });
  return probe;
}

/** The user adds the agent; returns the conversation id. */
export async function addAgent(server: ReferenceServer, user: TestUser, agentId: string): Promise<string> {
  const res = await call(server, 'POST', '/conversations', {
    token: user.accessToken,
    json: { agent_id: agentId },
  });
  expect(res.status, res.text).toBeLessThan(300);
  return String(res.data['conversation_id']);
}

/** Seals a payload from `sender` to `recipients`. */
export function sealAs(
  sender: { id: string; keys: AgentKeys },
  recipients: readonly { id: string; keys: AgentKeys }[],
  conversationId: string,
  payload: Record<string, unknown>,
  messageId?: string,
): string {
  return seal(payload, {
    sender: { id: sender.id, signing: sender.keys.signing },
    recipients: recipients.map((r) => ({ id: r.id, publicKey: r.keys.encryption.publicKey })),
    conversationId,
    ...(messageId === undefined ? {} : { messageId }),
  });
}

/** The system sender's signing key, fetched as the SDK would. */
export async function systemSigningKey(server: ReferenceServer): Promise<Uint8Array> {
  const res = await call(server, 'GET', '/system/keys');
  expect(res.status).toBe(200);
  return fromBase64(String(res.data['signing_public_key']))!;
}

/** Opens a wire envelope as `recipient`, verifying the sender's signature with `senderKey`. */
export function openAs(
  wire: string,
  recipient: { id: string; keys: AgentKeys },
  senderKey: Uint8Array,
): OpenedEnvelope {
  return open(wire, { recipientId: recipient.id, keys: recipient.keys, senderKey: () => senderKey });
}

/** Waits for the next frame of `type` (skipping others). */
export async function nextOfType(probe: WsProbe, type: string): Promise<Frame> {
  for (;;) {
    const f = await probe.next();
    if (f.type === type) return f;
  }
}
