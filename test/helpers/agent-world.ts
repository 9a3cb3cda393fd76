/**
 * Helpers for Agent tests against the reference server: a server on real
 * time (or virtual time when asked), a user with a key backup, an agent
 * created over REST whose keys the SDK's Agent generates and registers
 * itself, and the user's side of a conversation (seal, send with retries
 * across server restarts, read the agent's replies).
 */
import { expect } from 'vitest';
import { fromBase64 } from '../../packages/sdk/src/core/encoding.js';
import { systemClock } from '../../packages/sdk/src/core/clock.js';
import type { Logger } from '../../packages/sdk/src/core/logger.js';
import { MemoryKeyStore, open, seal, type OpenedEnvelope } from '../../packages/sdk/src/crypto/index.js';
import { Agent, type AgentOptions } from '../../packages/sdk/src/agent/index.js';
import type { ReferenceServer, ReferenceServerOptions } from '../../packages/dev/src/testing/index.js';
import { createTestAgent, createTestUser, startAgentServer, type TestUser } from './server-agents.js';
import { call, type ApiResponse } from './server-http.js';

/** Starts a server on real time (unless `virtualTime: true` is passed) with cheap hashing. */
export function startWorld(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const virtual = options.virtualTime === true;
  return startAgentServer({
    ...(virtual ? { startTimeMs: Date.now() } : { clock: systemClock }),
    ...options,
  });
}

/** An agent created over REST (keys not registered: the SDK does that). */
export interface AgentAccount {
  readonly agentId: string;
  readonly token: string;
  readonly owner: TestUser;
}

/** A user and an unregistered agent of theirs. */
export async function createAccount(server: ReferenceServer): Promise<AgentAccount> {
  const owner = await createTestUser(server);
  const agent = await createTestAgent(server, owner, { register: false });
  return { agentId: agent.agentId, token: agent.token, owner };
}

/** Fast back-off for tests (real time). */
export const FAST_RECONNECT = { baseMs: 20, capMs: 150, stableAfterMs: 60_000 } as const;

/** A new Agent for `account` on `server` with test-friendly defaults. */
export function newAgent(
  server: ReferenceServer,
  account: { agentId: string; token: string },
  options: Partial<AgentOptions> = {},
): Agent {
  return new Agent({
    baseUrl: server.url,
    agentId: account.agentId,
    token: account.token,
    keyStore: new MemoryKeyStore(),
    reconnect: FAST_RECONNECT,
    retry: { baseDelayMs: 20, maxDelayMs: 200 },
    ...options,
  });
}

/** A logger that keeps every line (to scan for secrets). */
export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const put =
    (level: string) =>
    (message: string, fields?: Readonly<Record<string, unknown>>): void => {
      lines.push(`${level} ${message} ${fields === undefined ? '' : JSON.stringify(fields)}`);
    };
  return { lines, debug: put('debug'), info: put('info'), warn: put('warn'), error: put('error') };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The user's side of a conversation with the agent. */
export class UserSide {
  conversationId = '';
  #agentKeys: Uint8Array[] | undefined;

  constructor(
    readonly server: ReferenceServer,
    public user: TestUser,
    readonly agentId: string,
  ) {}

  /** A fresh access token for the user (after virtual time passed 300 s). */
  async refreshAccess(): Promise<void> {
    const t = await this.server.control.accessToken(this.user.userId, { deviceId: this.user.deviceId });
    this.user = { ...this.user, accessToken: t.accessToken };
  }

  /** Adds the agent (its keys must be registered). */
  async addAgent(): Promise<string> {
    const res = await call(this.server, 'POST', '/conversations', {
      token: this.user.accessToken,
      json: { agent_id: this.agentId },
    });
    expect(res.status, res.text).toBeLessThan(300);
    this.conversationId = String(res.data['conversation_id']);
    return this.conversationId;
  }

  /** Forgets the cached agent keys (after the agent rotated). */
  forgetKeys(): void {
    this.#agentKeys = undefined;
  }

  /** The agent's current X25519 key and the retired ones in grace. */
  async agentKeys(): Promise<Uint8Array[]> {
    if (this.#agentKeys !== undefined) return this.#agentKeys;
    const res = await this.#retrying(() =>
      call(this.server, 'GET', `/keys/${this.agentId}`, { token: this.user.accessToken }),
    );
    expect(res.status, res.text).toBe(200);
    const retired = (res.data['retired'] as { public_key: string }[] | undefined) ?? [];
    this.#agentKeys = [String(res.data['public_key']), ...retired.map((r) => r.public_key)].map((k) =>
      fromBase64(k)!,
    );
    return this.#agentKeys;
  }

  /** Seals `payload` to the agent (to `keys` when given, else its live keys). */
  async seal(payload: Record<string, unknown>, options: { messageId?: string; keys?: Uint8Array[] } = {}) {
    const keys = options.keys ?? (await this.agentKeys());
    return seal(payload, {
      sender: { id: this.user.userId, signing: this.user.keys.signing },
      recipients: keys.map((publicKey) => ({ id: this.agentId, publicKey })),
      conversationId: this.conversationId,
      ...(options.messageId === undefined ? {} : { messageId: options.messageId }),
    });
  }

  /** Posts a sealed envelope, retrying network failures (a restarting server). */
  postWire(wire: string): Promise<ApiResponse> {
    return this.#retrying(() =>
      call(this.server, 'POST', `/conversations/${this.conversationId}/messages`, {
        token: this.user.accessToken,
        json: { wire_envelope: wire },
      }),
    );
  }

  /** Seals and sends; returns the message id. */
  async send(payload: Record<string, unknown>, options: { messageId?: string } = {}): Promise<string> {
    const res = await this.postWire(await this.seal(payload, options));
    expect(res.status, res.text).toBeLessThan(300);
    return String(res.data['message_id']);
  }

  /** Messages the agent sent to this conversation, opened as the user. */
  async repliesFromAgent(agentSigningKey: Uint8Array): Promise<OpenedEnvelope[]> {
    const res = await call(this.server, 'GET', `/conversations/${this.conversationId}/messages?limit=200`, {
      token: this.user.accessToken,
    });
    expect(res.status, res.text).toBe(200);
    const list = res.json as { data: { sender_id: string; wire_envelope: string }[] };
    return list.data
      .filter((m) => m.sender_id === this.agentId)
      .map((m) =>
        open(m.wire_envelope, {
          recipientId: this.user.userId,
          keys: this.user.keys,
          senderKey: () => agentSigningKey,
        }),
      );
  }

  async #retrying(fn: () => Promise<ApiResponse>): Promise<ApiResponse> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (attempt >= 200) throw err;
        await pause(10);
      }
    }
  }
}

/** The agent's registered signing key, read as its owner. */
export async function agentSigningKey(server: ReferenceServer, account: AgentAccount): Promise<Uint8Array> {
  const res = await call(server, 'GET', `/keys/${account.agentId}`, { token: account.owner.accessToken });
  expect(res.status, res.text).toBe(200);
  return fromBase64(String(res.data['signing_public_key']))!;
}

/** Resolves when `check()` holds, polling on real time; rejects after `timeoutMs`. */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(5);
  }
}

/** A promise the test releases by hand (a handler that waits for it). */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
