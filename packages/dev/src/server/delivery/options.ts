/**
 * Options of the delivery engine: the shared contract's dependencies plus the
 * seams only the engine's own tests and benchmarks turn.
 *
 * @module
 */
import { ConfigurationError } from 'agent-messaging-sdk/protocol';
import { LIMITS } from 'agent-messaging-sdk/protocol';
import type { DeliveryEngineDeps, OutboundEvent, WsAckOptions } from './types.js';
import { createUndiciWebhookSender, type WebhookSender } from './webhook-sender.js';
import type { DeliveryObserver } from './observer.js';

/** Caller input of `createDeliveryEngine`. */
export interface DeliveryEngineOptions extends DeliveryEngineDeps {
  /**
   * How deliveries reach receivers. The engine closes a sender only when it created it.
   * @defaultValue an undici keep-alive sender (`createUndiciWebhookSender()`)
   */
  readonly sender?: WebhookSender;
  /**
   * Largest inline body; larger bodies travel as `ref`. Only tests lower it.
   * @defaultValue `LIMITS.WEBHOOK_BODY_MAX_BYTES` (1 048 576)
   */
  readonly maxInlineBytes?: number;
  /** Wraps the sender (the dev console's injected failures, `faults.ts`). */
  readonly wrapSender?: (sender: WebhookSender) => WebhookSender;
  /** Told of every change of an agent's deliveries or connection (the dev console's live feed). */
  readonly observe?: DeliveryObserver;
}

/** Options after defaults. */
export interface ResolvedEngineOptions {
  readonly clock: DeliveryEngineDeps['clock'];
  readonly target: DeliveryEngineDeps['target'];
  readonly onExpired: (agentId: string, events: readonly OutboundEvent[]) => void;
  readonly webhookTimeoutMs: number;
  readonly log: (message: string, fields?: Readonly<Record<string, unknown>>) => void;
  readonly observe: DeliveryObserver;
  readonly sender: WebhookSender;
  readonly ownsSender: boolean;
  readonly maxInlineBytes: number;
  readonly pendingTtlMs: number;
  readonly wsAck: Required<WsAckOptions>;
}

/** Defaults of the engine's plain options. */
export const DEFAULT_DELIVERY_ENGINE_OPTIONS = {
  webhookTimeoutMs: LIMITS.WEBHOOK_RESPONSE_TIMEOUT_MS,
  maxInlineBytes: LIMITS.WEBHOOK_BODY_MAX_BYTES,
  pendingTtlMs: LIMITS.PENDING_QUEUE_TTL_MS,
  wsAck: { window: 256, timeoutMs: 30_000, maxAttempts: 10 },
} as const satisfies Partial<ResolvedEngineOptions>;

function intOption(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigurationError({
      option: name,
      message: `${name} must be an integer from ${min} to ${max}.`,
    });
  }
  return value;
}

function guarded<A extends unknown[]>(fn: ((...args: A) => void) | undefined): (...args: A) => void {
  if (fn === undefined) return () => {};
  return (...args) => {
    try {
      fn(...args);
    } catch {
      // A failing callback of the agents core must not break delivery.
    }
  };
}

/**
 * Applies defaults and checks the options.
 *
 * @throws {@link ConfigurationError} naming the bad option.
 */
export function resolveEngineOptions(options: DeliveryEngineOptions): ResolvedEngineOptions {
  const d = DEFAULT_DELIVERY_ENGINE_OPTIONS;
  if (typeof options.target?.mode !== 'function' || typeof options.target.sendWs !== 'function') {
    throw new ConfigurationError({ option: 'target', message: 'target must have mode() and sendWs().' });
  }
  const webhookTimeoutMs = intOption(
    'webhookTimeoutMs',
    options.webhookTimeoutMs ?? d.webhookTimeoutMs,
    1,
    600_000,
  );
  const maxInlineBytes = intOption(
    'maxInlineBytes',
    options.maxInlineBytes ?? d.maxInlineBytes,
    256,
    d.maxInlineBytes,
  );
  return {
    clock: options.clock,
    target: options.target,
    onExpired: guarded(options.onExpired),
    webhookTimeoutMs,
    log: guarded(options.log),
    observe: guarded(options.observe),
    sender: (options.wrapSender ?? ((s: WebhookSender) => s))(
      options.sender ?? createUndiciWebhookSender({ connectTimeoutMs: webhookTimeoutMs }),
    ),
    ownsSender: options.sender === undefined,
    maxInlineBytes,
    pendingTtlMs: d.pendingTtlMs,
    wsAck: {
      window: intOption('wsAck.window', options.wsAck?.window ?? d.wsAck.window, 1, 65_536),
      timeoutMs: intOption('wsAck.timeoutMs', options.wsAck?.timeoutMs ?? d.wsAck.timeoutMs, 10, 86_400_000),
      maxAttempts: intOption(
        'wsAck.maxAttempts',
        options.wsAck?.maxAttempts ?? d.wsAck.maxAttempts,
        1,
        1_000,
      ),
    },
  };
}
