/**
 * Conversation affinity for an agent with several live WebSocket sessions
 * (copies of one agent sharing delivery; gap decision "Several live sockets
 * per agent", docs/production.md).
 *
 * Each conversation belongs to one session while that session lives, so the
 * events of a conversation reach one copy, in order (and a stop reaches the
 * copy running the turn). A conversation without an owner goes to the live,
 * not draining session owning the fewest conversations. It moves only when
 * its session leaves (its unacknowledged deliveries were put back in front
 * of the queue, in order, and go to the new owner first), or when its
 * session drains and holds none of its deliveries unacknowledged any more.
 *
 * @module
 */
import type { AgentState } from './queue.js';
import type { WsSession } from './types.js';

/** Where the head of the queue goes: a session, or nowhere yet (`wait`). */
export type Route = WsSession | 'wait';

function holdsUnacked(state: AgentState, sessionId: number, conversationId: string): boolean {
  for (const d of state.unacked.values())
    if (d.sentOn === sessionId && d.event.metadata.conversation_id === conversationId) return true;
  return false;
}

function leastLoaded(state: AgentState, live: readonly WsSession[]): WsSession | undefined {
  const load = new Map<number, number>();
  for (const s of live) if (s.draining !== true) load.set(s.id, 0);
  if (load.size === 0) return undefined;
  for (const owner of state.owners.values()) {
    const n = load.get(owner);
    if (n !== undefined) load.set(owner, n + 1);
  }
  let best: WsSession | undefined;
  let bestLoad = Infinity;
  for (const s of live) {
    const n = load.get(s.id);
    if (n !== undefined && n < bestLoad) [best, bestLoad] = [s, n];
  }
  return best;
}

/**
 * The session for the next event of `conversationId`, assigning an owner
 * when it has none (or its owner left, or drained and holds nothing of it).
 * `wait` while the draining owner still holds some of its deliveries, or
 * when no session can take it.
 */
export function routeConversation(
  state: AgentState,
  conversationId: string,
  live: readonly WsSession[],
): Route {
  const ownerId = state.owners.get(conversationId);
  const owner = ownerId === undefined ? undefined : live.find((s) => s.id === ownerId);
  if (owner !== undefined && owner.draining !== true) return owner;
  if (owner !== undefined && holdsUnacked(state, owner.id, conversationId)) return 'wait';
  const next = leastLoaded(state, live);
  if (next === undefined) {
    state.owners.delete(conversationId);
    return 'wait';
  }
  state.owners.set(conversationId, next.id);
  return next;
}

/** Forgets the conversations `sessionId` owned (it left): they get a new owner on their next event. */
export function releaseOwner(state: AgentState, sessionId: number): void {
  for (const [conversationId, owner] of state.owners)
    if (owner === sessionId) state.owners.delete(conversationId);
}
