/**
 * Builds the {@link ServerContext} (`context.ts`) of one server from its
 * options: clock, store, token services, hubs and the delivery engine.
 *
 * @module
 */
import { ManualClock, systemClock, type AgentKeys, type Clock } from 'agent-messaging-sdk/protocol';
import { createAccessTokenService } from './auth/access-token.js';
import { DevMailbox } from './auth/mailbox.js';
import { createPasswordHasher } from './auth/password-hash.js';
import { DevTurnstile } from './auth/turnstile.js';
import { resolveServerOptions, type ReferenceServerOptions, type ServerLogger } from './options.js';
import { AgentSockets } from './agents/agent-sockets.js';
import { KeyChallenges } from './agents/key-challenges.js';
import { createSystemSender } from './agents/system-sender.js';
import { createAgentTokenService } from './agents/token-service.js';
import { deliveryActivity, emitActivity } from './activity.js';
import { createDeliveryEngine } from './delivery/index.js';
import type { OutboundEvent } from './delivery/types.js';
import { WebhookFaults } from './delivery/faults.js';
import { ConsoleFeed } from './console/feed-hub.js';
import { observeForFeed } from './console/feed.js';
import { sendDeliveryFailureNotices } from './messages/notices.js';
import { RateLimitHits } from './limits/rate-limit-hits.js';
import { RateLimits } from './limits/rate-limiter.js';
import { createMemoryStore } from './store/memory.js';
import type { Store } from './store/types.js';
import { WsHub } from './ws/hub.js';
import { UserDeliveries } from './ws/user-deliveries.js';
import { messageFrame } from './messages/relay.js';
import type { ServerContext } from './context.js';

/** What a server with a data directory brings back from an earlier run (`data-dir.ts`). */
export interface PersistedState {
  /** The agents the store holds. */
  readonly agentIds?: Iterable<string>;
  /** The system sender's keys, kept so that pinned peers still trust it. */
  readonly systemKeys?: AgentKeys;
}

const SILENT: ServerLogger = { info: () => {}, warn: () => {}, error: () => {} };

function pickClock(options: ReferenceServerOptions): { clock: Clock; virtualClock: ManualClock | undefined } {
  if (options.clock !== undefined) {
    return {
      clock: options.clock,
      virtualClock: options.clock instanceof ManualClock ? options.clock : undefined,
    };
  }
  if (options.virtualTime === true) {
    const clock = new ManualClock(options.startTimeMs ?? Date.now());
    return { clock, virtualClock: clock };
  }
  return { clock: systemClock, virtualClock: undefined };
}

/**
 * Builds the context from caller options.
 *
 * @throws {@link ConfigurationError} for a bad option.
 */
export function createServerContext(
  options: ReferenceServerOptions = {},
  store: Store = createMemoryStore(),
  persisted: PersistedState = {},
): ServerContext {
  const resolved = resolveServerOptions(options);
  const { clock, virtualClock } = pickClock(options);
  const logger = options.logger ?? SILENT;
  const mailbox = options.mailer === undefined ? new DevMailbox() : undefined;
  const devTurnstile = options.turnstile === undefined ? new DevTurnstile() : undefined;
  const hub = new WsHub(clock, logger);
  const agentSockets = new AgentSockets(hub);
  const agentIds = new Set<string>(persisted.agentIds);
  // Set once the context exists: events dropped after 24 h pending get delivery-failure notices.
  let onExpired: (agentId: string, events: readonly OutboundEvent[]) => void = () => {};
  const webhookFaults = new WebhookFaults();
  const consoleFeed = new ConsoleFeed();
  const delivery = createDeliveryEngine({
    clock,
    wrapSender: (sender) => webhookFaults.wrap(sender),
    target: {
      mode: (id) =>
        agentIds.has(id) ? (delivery.getWebhook(id) === undefined ? 'websocket' : 'webhook') : undefined,
      sendWs: (id, frame, sessionId) => agentSockets.send(id, frame, sessionId),
      wsSession: (id) => agentSockets.session(id),
      wsSessions: (id) => agentSockets.sessions(id),
    },
    wsAck: resolved.wsAck,
    onExpired: (agentId, events) => onExpired(agentId, events),
    // Called only once the context exists (the engine reports nothing before that).
    observe: (o) => observeForFeed(ctx, o),
    webhookTimeoutMs: resolved.webhookTimeoutMs,
    ...(options.onActivity === undefined
      ? {}
      : { log: (event, fields) => emitActivity(options.onActivity, deliveryActivity(event, fields)) }),
  });
  const ctx: ServerContext = {
    options: resolved,
    clock,
    virtualClock,
    store,
    tokens: createAccessTokenService(clock, options.jwtSecret),
    passwords: createPasswordHasher(options.passwordHashing),
    mailer: options.mailer ?? mailbox!.deliver,
    mailbox,
    turnstile: options.turnstile ?? devTurnstile!.verify,
    devTurnstile,
    hub,
    logger,
    onActivity: options.onActivity,
    agentTokens: createAgentTokenService(store.agents, clock, resolved.agentTokenBcryptCost),
    agentIds,
    agentSockets,
    keyChallenges: new KeyChallenges(clock),
    limits: new RateLimits(clock),
    rateLimitHits: new RateLimitHits(),
    system: createSystemSender(clock, persisted.systemKeys),
    delivery,
    webhookFaults,
    consoleFeed,
    userDeliveries: new UserDeliveries({
      store,
      clock,
      window: resolved.wsAck.window,
      frameOf: messageFrame,
    }),
    baseUrl: `http://${resolved.host}:${resolved.port}`,
  };
  onExpired = (agentId, events) => void sendDeliveryFailureNotices(ctx, agentId, events);
  return ctx;
}
