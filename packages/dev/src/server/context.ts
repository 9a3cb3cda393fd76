/**
 * Everything a handler may use: options, clock, store and services, as one
 * type. Built once per server by `createServerContext`
 * (`create-context.ts`); handlers receive it with each request. Only types
 * live here, so the route table and every handler can name the context
 * without importing what builds it.
 *
 * @module
 */
import type { ManualClock, Clock } from 'agent-messaging-sdk/protocol';
import type { AccessTokenService } from './auth/access-token.js';
import type { DevMailbox, Mailer } from './auth/mailbox.js';
import type { PasswordHasher } from './auth/password-hash.js';
import type { DevTurnstile, TurnstileVerifier } from './auth/turnstile.js';
import type { ResolvedServerOptions, ServerLogger } from './options.js';
import type { AgentSockets } from './agents/agent-sockets.js';
import type { KeyChallenges } from './agents/key-challenges.js';
import type { SystemSender } from './agents/system-sender.js';
import type { AgentTokenService } from './agents/token-service.js';
import type { ActivityListener } from './activity.js';
import type { ConsoleFeed } from './console/feed-hub.js';
import type { ReferenceDeliveryEngine } from './delivery/engine.js';
import type { WebhookFaults } from './delivery/faults.js';
import type { RateLimitHits } from './limits/rate-limit-hits.js';
import type { RateLimits } from './limits/rate-limiter.js';
import type { Store } from './store/types.js';
import type { WsHub } from './ws/hub.js';
import type { UserDeliveries } from './ws/user-deliveries.js';

/** Server state and services. */
export interface ServerContext {
  readonly options: ResolvedServerOptions;
  /** The server's time; a {@link ManualClock} in virtual-time mode. */
  readonly clock: Clock;
  /** The clock when it is virtual. */
  readonly virtualClock: ManualClock | undefined;
  readonly store: Store;
  readonly tokens: AccessTokenService;
  readonly passwords: PasswordHasher;
  readonly mailer: Mailer;
  /** The in-memory mailbox, unless a mailer was given. */
  readonly mailbox: DevMailbox | undefined;
  readonly turnstile: TurnstileVerifier;
  /** The dev Turnstile, unless a verifier was given. */
  readonly devTurnstile: DevTurnstile | undefined;
  readonly hub: WsHub;
  readonly logger: ServerLogger;
  /** Where request and delivery records go (`onActivity`), if anywhere. */
  readonly onActivity: ActivityListener | undefined;
  /** Agent tokens: issuing and the fast (verified-digest) check. */
  readonly agentTokens: AgentTokenService;
  /** Ids of the agents that exist (a synchronous view for the delivery engine). */
  readonly agentIds: Set<string>;
  /** The agents' WebSockets. */
  readonly agentSockets: AgentSockets;
  /** Outstanding key-registration challenges. */
  readonly keyChallenges: KeyChallenges;
  /** Per-agent request-rate limits on the server's clock. */
  readonly limits: RateLimits;
  /** 429 answers given about each agent (dev console). */
  readonly rateLimitHits: RateLimitHits;
  /** The identity service-originated events are sealed with. */
  readonly system: SystemSender;
  /** Delivery of events to agents (WebSocket or webhook). */
  readonly delivery: ReferenceDeliveryEngine;
  /** Webhook failures injected through the control API (dev console). */
  readonly webhookFaults: WebhookFaults;
  /** The dev console's live feeds (pages watching an agent's deliveries). */
  readonly consoleFeed: ConsoleFeed;
  /** Acknowledged delivery to user connections that asked for it, fed from the inbox. */
  readonly userDeliveries: UserDeliveries;
  /** `http://host:port` once listening (WebAuthn's default origin uses it). */
  baseUrl: string;
}
