/**
 * One webhook attempt: sign the body with the current registration at the
 * engine's "now", POST it through the sender, and turn the answer into an
 * {@link AttemptOutcome}. The deadline runs on both clocks: the sender's
 * real-time deadline (network time) and, for an injected clock, a timer on
 * that clock (so a virtual clock moved past the deadline is a timeout too).
 *
 * @module
 */
import { systemClock, type Clock } from 'agent-messaging-sdk/protocol';
import type { WebhookSigner } from 'agent-messaging-sdk/protocol';
import { classifyResponse, type AttemptOutcome } from './schedule.js';
import type { WebhookSender } from './webhook-sender.js';

/** What one attempt needs. */
export interface AttemptInput {
  readonly url: string;
  readonly signer: WebhookSigner;
  readonly agentId: string;
  readonly deliveryId: string;
  readonly body: Uint8Array;
  readonly clock: Clock;
  readonly timeoutMs: number;
  readonly sender: WebhookSender;
  /** Aborted by the engine on shutdown or when it forgets the agent. */
  readonly cancel: AbortSignal;
  /** Called with the headers the attempt is sent with (dev console's inspector). */
  readonly onSigned?: (headers: Readonly<Record<string, string>>) => void;
}

/** An attempt's outcome, or `cancelled` when the engine gave up on it. */
export type AttemptResult = AttemptOutcome | { readonly kind: 'cancelled' };

/**
 * The signal an attempt is sent with: the engine's cancel signal, plus (on a
 * clock other than the system clock) a timer on that clock. On the system
 * clock the sender's own real-time deadline is the whole story, so an
 * attempt costs no extra timer.
 */
function deadline(input: AttemptInput): { signal: AbortSignal; timedOut: () => boolean; clear: () => void } {
  const { clock } = input;
  if (clock === systemClock) return { signal: input.cancel, timedOut: () => false, clear: () => {} };
  const controller = new AbortController();
  let fired = false;
  const onCancel = (): void => controller.abort();
  input.cancel.addEventListener('abort', onCancel, { once: true });
  const timer = clock.setTimeout(
    () => {
      fired = true;
      controller.abort();
    },
    input.timeoutMs,
    { background: true },
  );
  return {
    signal: controller.signal,
    timedOut: () => fired,
    clear: () => {
      clock.clearTimeout(timer);
      input.cancel.removeEventListener('abort', onCancel);
    },
  };
}

/** Signs and sends one attempt. Never throws. */
export async function runAttempt(input: AttemptInput): Promise<AttemptResult> {
  const { clock } = input;
  const limit = deadline(input);
  try {
    if (input.cancel.aborted) return { kind: 'cancelled' };
    const { headers } = await input.signer.sign({
      timestamp: Math.floor(clock.now() / 1000),
      deliveryId: input.deliveryId,
      body: input.body,
      agentId: input.agentId,
    });
    const sent = { ...headers, 'content-length': String(input.body.length) };
    input.onSigned?.(sent);
    const result = await input.sender.send({
      url: input.url,
      headers: sent,
      body: input.body,
      timeoutMs: input.timeoutMs,
      signal: limit.signal,
    });
    if (input.cancel.aborted) return { kind: 'cancelled' };
    switch (result.kind) {
      case 'response':
        return classifyResponse(result.status, result.retryAfter, clock.now());
      case 'timeout':
        return { kind: 'temporary', errorClass: 'timeout' };
      case 'network':
        return { kind: 'temporary', errorClass: 'network' };
      case 'aborted':
        return limit.timedOut() ? { kind: 'temporary', errorClass: 'timeout' } : { kind: 'cancelled' };
    }
  } catch {
    // Signing failed (cannot happen with a registration accepted by setWebhook).
    return input.cancel.aborted ? { kind: 'cancelled' } : { kind: 'temporary', errorClass: 'internal' };
  } finally {
    limit.clear();
  }
}
