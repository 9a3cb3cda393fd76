/**
 * The 24 h limit of the pending queue: one timer per agent at the head's
 * expiry (the queue is in time order), and taking the expired deliveries off
 * the head — never the one in flight, whose attempt decides first.
 *
 * @module
 */
import type { Clock } from 'agent-messaging-sdk/protocol';
import type { AgentState, PendingDelivery } from './queue.js';

/** (Re)sets the agent's expiry timer to its current head; `onDue` runs when it fires. */
export function armExpiry(state: AgentState, clock: Clock, onDue: () => void): void {
  const head = state.queue.peek();
  if (state.expiryTimer !== undefined && state.expiryTimer.atMs === head?.expiresAtMs) return;
  if (state.expiryTimer !== undefined) clock.clearTimeout(state.expiryTimer.handle);
  state.expiryTimer = undefined;
  if (head === undefined) return;
  const handle = clock.setTimeout(
    () => {
      state.expiryTimer = undefined;
      onDue();
    },
    head.expiresAtMs - clock.now(),
    { background: true },
  );
  state.expiryTimer = { handle, atMs: head.expiresAtMs };
}

/**
 * Removes and returns the deliveries whose 24 h are up, in order. Stops at
 * the head while an attempt of it is in flight. The caller cancels any retry
 * timer when something was taken (it belonged to the old head).
 */
export function takeExpired(state: AgentState, nowMs: number): PendingDelivery[] {
  const taken: PendingDelivery[] = [];
  if (state.inFlight) return taken;
  for (
    let head = state.queue.peek();
    head !== undefined && head.expiresAtMs <= nowMs;
    head = state.queue.peek()
  ) {
    state.queue.shift();
    taken.push(head);
  }
  return taken;
}
