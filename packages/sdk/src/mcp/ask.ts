/**
 * Asking the owner with an artifact and waiting for the answer on the
 * bridge's clock: shared by the `ask_owner` tool and the elicitation handler.
 *
 * @module
 */
import type { Agent } from '../index.js';
import {
  ARTIFACT_LIMITS,
  TimeoutError,
  type ArtifactContent,
  type ArtifactDeniedReason,
  type Clock,
} from '../protocol.js';
import { boundedWait } from './wait.js';

/** How an artifact sent to the owner ended. */
export type AskOutcome =
  | { readonly status: 'approved'; readonly data: Readonly<Record<string, unknown>> }
  | { readonly status: 'denied'; readonly reason: ArtifactDeniedReason; readonly by: 'user' | 'service' }
  | { readonly status: 'expired' };

/** Options of {@link askOwner}. */
export interface AskOptions {
  readonly agent: Agent;
  readonly conversationId: string;
  readonly content: ArtifactContent;
  /** Give up after this long (a `TimeoutError`); also the artifact's time to live. */
  readonly timeoutMs: number;
  readonly clock: Clock;
  /** Stops waiting (the MCP request was cancelled); its reason is thrown. */
  readonly signal?: AbortSignal | undefined;
}

/** The artifact's time to live for a wait of `timeoutMs`: the wait, within the service's bounds. */
export function ttlFor(timeoutMs: number): number {
  return Math.min(Math.max(timeoutMs, ARTIFACT_LIMITS.minTtlMs), ARTIFACT_LIMITS.maxTtlMs);
}

/** What a closed question says, by why nobody needs its answer any more. */
const CLOSED_BODY = {
  timeout: 'No answer came in time: this question no longer needs an answer.',
  cancelled: 'The question was withdrawn: this no longer needs an answer.',
} as const;

/**
 * Sends `content` to the owner as an artifact (sealed end to end) and waits
 * for the answer, at most `timeoutMs` on `clock`. The artifact lives as long
 * as the wait; when the wait ends without an answer (timeout, abort) the
 * question is closed before this rejects, so the owner cannot answer a
 * question nobody waits for.
 *
 * @throws `TimeoutError` when the owner does not answer in time; the
 * signal's reason when it aborts; what `agent.artifacts.send` throws.
 */
export async function askOwner(options: AskOptions): Promise<AskOutcome> {
  const { agent, clock, signal, timeoutMs } = options;
  signal?.throwIfAborted();
  const artifact = await agent.artifacts.send(options.conversationId, {
    content: options.content,
    ttlMs: ttlFor(timeoutMs),
  });
  try {
    return await boundedWait<AskOutcome>(
      clock,
      timeoutMs,
      signal,
      `No answer from the owner within ${timeoutMs} ms.`,
      (resolve, reject) => {
        artifact.response().then((o) => {
          if (o.status === 'approved') resolve({ status: 'approved', data: o.data });
          else if (o.status === 'denied') resolve({ status: 'denied', reason: o.reason, by: o.by });
          else resolve({ status: 'expired' });
        }, reject);
      },
    );
  } catch (err) {
    await artifact.withdraw(CLOSED_BODY[err instanceof TimeoutError ? 'timeout' : 'cancelled']);
    throw err;
  }
}
