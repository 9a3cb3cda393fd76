/**
 * The security suite's world: the reference server on 127.0.0.1, a hostile
 * relay in front of it (test/helpers/hostile-relay.ts), and the real clients
 * talking through the relay: a user (UserClient, signed up through the real
 * flow) and that user's agent (Agent in WebSocket mode), in one conversation.
 * Each attack test rewrites, holds or injects through `world.relay`, while
 * the server stays honest: what a client refuses, it refused on its own.
 */
import { MemoryKeyStore } from '../../packages/sdk/src/crypto/index.js';
import { Agent, type AgentOptions } from '../../packages/sdk/src/agent/index.js';
import type { UserClient, UserClientOptions } from '../../packages/sdk/src/client/index.js';
import type { ReferenceServer } from '../../packages/dev/src/testing/index.js';
import { FAST_RECONNECT } from '../helpers/agent-world.js';
import { CHEAP_BACKUP, signUp, type SignedUpUser } from '../helpers/client-setup.js';
import { startHostileRelay, type HostileRelay } from '../helpers/hostile-relay.js';
import { startAgentServer } from '../helpers/server-agents.js';
import { UserClient as UserClientClass } from '../../packages/sdk/src/client/index.js';

/** A running world; `close()` ends everything it started. */
export interface SecurityWorld {
  readonly server: ReferenceServer;
  readonly relay: HostileRelay;
  /** The human, signed up and connected through the relay. */
  readonly user: SignedUpUser;
  /** The user's agent, connected through the relay. */
  readonly agent: Agent;
  readonly agentId: string;
  /** The conversation of the user with the agent. */
  readonly conversationId: string;
  /** A second UserClient through the relay (not signed up): `signUp(world.server, client)`. */
  newUserClient(extra?: Partial<UserClientOptions>): UserClient;
  close(): Promise<void>;
}

/** Options of {@link startSecurityWorld}. */
export interface SecurityWorldOptions {
  /** Extra options of the Agent (its keyStore defaults to a new MemoryKeyStore). */
  readonly agent?: Partial<AgentOptions>;
  /** Extra options of the user's client. */
  readonly user?: Partial<UserClientOptions>;
}

/** Starts the server, the relay, a user and an agent, and one conversation between them. */
export async function startSecurityWorld(options: SecurityWorldOptions = {}): Promise<SecurityWorld> {
  const server = await startAgentServer();
  const relay = await startHostileRelay(server.url);
  const newUserClient = (extra: Partial<UserClientOptions> = {}): UserClient =>
    new UserClientClass({ baseUrl: relay.url, keyBackup: CHEAP_BACKUP, ...options.user, ...extra });
  const user = await signUp(server, newUserClient());
  const created = await user.client.createAgent({ name: 'security-bot' });
  const agent = new Agent({
    baseUrl: relay.url,
    agentId: created.agentId,
    token: created.token,
    keyStore: new MemoryKeyStore(),
    reconnect: FAST_RECONNECT,
    retry: { baseDelayMs: 20, maxDelayMs: 200 },
    logger: false,
    ...options.agent,
  });
  await agent.connect();
  const conversation = await user.client.addAgent(created.agentId);
  await user.client.connect();
  return {
    server,
    relay,
    user,
    agent,
    agentId: created.agentId,
    conversationId: conversation.conversationId,
    newUserClient,
    async close() {
      await agent.close({ timeoutMs: 1_000 }).catch(() => undefined);
      await user.client.disconnect().catch(() => undefined);
      await relay.close();
      await server.close();
    },
  };
}
