/**
 * How an Agent is put together: the REST client and API, the key directory
 * and sender, the ordered scheduler and the event pipeline, plus the two
 * start-up steps (keys, auto-recover). The facade (`agent.ts`) only holds
 * state and the public methods.
 *
 * @module
 */
import type { QuoteCache } from '../messaging/quote-cache.js';
import type { StreamOpener } from './streams/reply-stream.js';
import { isTerminalCode } from '../core/errors/codes.js';
import { isAmsError } from '../core/errors/guards.js';
import type { AnyAgentEvent, ExpiredEvents } from './events.js';
import type { MessagePayload } from '../core/protocol/payloads.js';
import type { KeyRing } from '../crypto/key-store/key-ring.js';
import { createRestClient } from '../transport/rest/client.js';
import { createAgentApi, type AgentApi } from './api.js';
import { createEventDedup } from './dedup.js';
import { TypedEmitter } from './emitter.js';
import type { AgentListenerArgs, SendResult } from './events.js';
import { createKeyDirectory, type KeyDirectory } from '../messaging/key-directory.js';
import type { KeyPins } from '../messaging/key-pins.js';
import type { MemberWatch } from '../messaging/member-watch.js';
import { trustParts } from '../messaging/trust.js';
import { ensureAgentKeys } from './key-lifecycle.js';
import type { ResolvedAgentOptions } from './options.js';
import { createOrderedScheduler } from './ordering.js';
import { EventPipeline, type PipelineTurns } from './pipeline/pipeline.js';
import type { PipelineDeps, TurnStarted } from './pipeline/types.js';
import { createTurnRegistry, type TurnRegistry } from './turns/registry.js';
import { OpenWorkerPool } from '../crypto/open-pool/pool.js';
import { createMessageSender, type MessageSender, type SendOptions } from '../messaging/sender.js';
import { senderKeys } from './sender-keys.js';
import type { DecisionVetter } from './decisions.js';

/** What the parts need from the facade's state. */
export interface AgentHooks {
  /** The current agent token. */
  token(): string;
  /** The key ring, loading it first when needed. */
  ring(): KeyRing | Promise<KeyRing>;
  /** The loaded key ring (for sealing). */
  currentRing(): KeyRing;
  /** Sends a message (for `reply`). */
  send(conversationId: string, payload: MessagePayload | string, options?: SendOptions): Promise<SendResult>;
  /** Opens a streamed reply (for `message.replyStream`). */
  stream?: StreamOpener;
  /** Checks human decisions before handlers see them (see `decisions.ts`). */
  vet?: DecisionVetter;
  /** Handles a verified stop request (`turns/stop.ts`), around the conversation's queue. */
  onStop?: PipelineTurns['onStop'];
  /** The turn seam: a handler starts (see `PipelineDeps.turnStarted`). */
  turnStarted?: TurnStarted;
  /** Texts of recent messages, for `replyTo` quotes. */
  quotes?: QuoteCache;
  /** Received edits, deletes and receipts. */
  onAction?: PipelineDeps['onAction'];
  /** Runs the middleware chain; `true` when it passed the event on to the `agent.on(type)` handlers. */
  chain?: (event: AnyAgentEvent) => Promise<boolean>;
}

/** The wired parts of one Agent. */
export interface AgentParts {
  readonly emitter: TypedEmitter<AgentListenerArgs>;
  readonly api: AgentApi;
  readonly sender: MessageSender;
  readonly pipeline: EventPipeline;
  readonly directory: KeyDirectory;
  readonly pins: KeyPins;
  readonly members: MemberWatch;
  /** The running turns, by conversation. */
  readonly turns: TurnRegistry;
}

/** Builds every part of an Agent from its resolved options. */
export function buildAgentParts(o: ResolvedAgentOptions, hooks: AgentHooks): AgentParts {
  const src = o.source;
  const emitter = new TypedEmitter<AgentListenerArgs>((error, event) =>
    o.logger.warn('an agent listener threw', { event: String(event), error: (error as Error)?.name }),
  );
  const rest = createRestClient({
    baseUrl: o.baseUrl,
    credentials: () => hooks.token(),
    clock: o.clock,
    logger: o.logger,
    ...(src.dispatcher === undefined ? {} : { dispatcher: src.dispatcher }),
    ...(src.retry === undefined ? {} : { retry: src.retry }),
    ...(src.rateLimiters === undefined ? {} : { rateLimiters: src.rateLimiters }),
  });
  rest.on('rateLimited', (info) => emitter.emit('rateLimited', info));
  const api = createAgentApi({ baseUrl: o.baseUrl, agentId: o.agentId, token: () => hooks.token(), rest });
  const { pins, members } = trustParts(
    o.source,
    o.logger,
    {
      keyChanged: (e) => emitter.emit('keyChanged', e),
      keyRefused: (e) => emitter.emit('keyRefused', e),
      membersChanged: (e) => emitter.emit('membersChanged', e),
    },
    // Pins persist where the keys do (FileKeyStore), so a restart is not a first answer.
    { clock: o.clock, pinStore: o.keyStore.pinStore?.() },
  );
  const directory = createKeyDirectory({ api, clock: o.clock, pins });
  const sender = createMessageSender({
    api,
    agentId: o.agentId,
    keys: () => hooks.currentRing(),
    directory,
    clock: o.clock,
    logger: o.logger,
    members,
    ...(src.backend === undefined ? {} : { backend: src.backend }),
  });
  const turns = createTurnRegistry((error) =>
    o.logger.error('a turn hook failed', { error: (error as Error)?.name }),
  );
  const scheduler = createOrderedScheduler({
    concurrency: o.concurrency,
    onTaskError: (error) => o.logger.error('an agent task failed', { error: (error as Error)?.name }),
  });
  const openPool =
    src.openWorkers === undefined || src.openWorkers === false
      ? undefined
      : new OpenWorkerPool({ workers: src.openWorkers, logger: o.logger });
  const pipeline = new EventPipeline({
    deps: {
      openPool,
      agentId: o.agentId,
      clock: o.clock,
      logger: o.logger,
      backend: src.backend,
      acceptLegacyV10: src.acceptLegacyV10,
      keys: { ring: () => hooks.ring(), ...senderKeys(directory, o.clock) },
      fetchObject: (key) => api.fetchObject(key),
      send: (conversationId, payload, options) => hooks.send(conversationId, payload, options),
      stream: hooks.stream,
      vet: hooks.vet,
      turnStarted: hooks.turnStarted,
      quotes: hooks.quotes,
      onAction: hooks.onAction,
      chain: hooks.chain,
    },
    dedup: createEventDedup({
      store: o.dedupStore,
      leaseMs: o.claimLeaseMs,
      logger: o.logger,
      clock: o.clock,
    }),
    scheduler,
    emitter,
    turns: {
      registry: turns,
      options: o.turns,
      onStop: (m, stop) => hooks.onStop?.(m, stop) ?? Promise.resolve(),
    },
  });
  return { emitter, api, sender, pipeline, directory, pins, members, turns };
}

/** Runs the key lifecycle (load or create, register, heal a mismatch, rotate after a regeneration). */
export function loadKeys(o: ResolvedAgentOptions, parts: AgentParts): Promise<KeyRing> {
  return ensureAgentKeys({
    api: parts.api,
    store: o.keyStore,
    clock: o.clock,
    logger: o.logger,
    onEvent: (event) => parts.emitter.emit('keys', event),
  });
}

/**
 * Recovers the agent when the service has it `unreachable`. Terminal errors
 * are thrown; any other failure is reported on `error` and start-up goes on.
 */
/** Reads the delivery logs for `pending_expired` entries (never throws: empty on failure). */
async function expiredWhileAway(parts: AgentParts): Promise<ExpiredEvents> {
  const byType: Record<string, number> = {};
  let count = 0;
  try {
    for (const entry of await parts.api.deliveryLogs(500)) {
      if (entry.final_status !== 'failed' || entry.error_class !== 'pending_expired') continue;
      byType[entry.event_type] = (byType[entry.event_type] ?? 0) + 1;
      count += 1;
    }
  } catch {
    // The recovery itself succeeded; the report is best effort.
  }
  return { count, byType };
}

export async function autoRecover(o: ResolvedAgentOptions, parts: AgentParts): Promise<void> {
  try {
    const self = await parts.api.getSelf();
    if (self.connectionStatus !== 'unreachable') return;
    const { pendingCount } = await parts.api.recoverConnection();
    const expired = await expiredWhileAway(parts);
    o.logger.info('recovered an unreachable agent', { pendingCount });
    if (expired.count > 0) {
      o.logger.warn(
        'events expired in the pending queue before this agent recovered; their senders were told, system events (relation.*) were not: reconcile your state',
        {
          count: expired.count,
          types: Object.entries(expired.byType)
            .map(([t, n]) => `${t}×${n}`)
            .join(', '),
        },
      );
    }
    parts.emitter.emit('recovered', { pendingCount, expired });
  } catch (error) {
    if (isAmsError(error) && isTerminalCode(error.code)) throw error;
    o.logger.warn('auto-recover failed; continuing', { error: (error as Error)?.name });
    if (isAmsError(error)) parts.pipeline.outcomes.error(error);
  }
}
