/**
 * In-memory agents, conversations and messages. Each method runs to
 * completion without awaiting, so each is atomic.
 *
 * @module
 */
import type {
  AgentRecord,
  AgentStore,
  ConversationRecord,
  ConversationStore,
  MessageRecord,
  MessageStore,
} from './agent-types.js';

/** Creates an empty in-memory {@link AgentStore}. */
export function createMemoryAgentStore(): AgentStore {
  const agents = new Map<string, AgentRecord>();
  return {
    async create(record, maxPerOwner) {
      let owned = 0;
      for (const a of agents.values()) if (a.ownerId === record.ownerId) owned++;
      if (owned >= maxPerOwner) return 'limit';
      agents.set(record.agentId, record);
      return record;
    },
    async get(agentId) {
      return agents.get(agentId);
    },
    async listByOwner(ownerId) {
      return [...agents.values()]
        .filter((a) => a.ownerId === ownerId)
        .sort((a, b) => a.createdAtMs - b.createdAtMs);
    },
    async all() {
      return [...agents.values()];
    },
    async update(agentId, change) {
      const agent = agents.get(agentId);
      if (agent === undefined) return undefined;
      const next = change(agent);
      if ('refused' in next) return next;
      agents.set(agentId, next);
      return next;
    },
  };
}

/** Creates an empty in-memory {@link ConversationStore}. */
export function createMemoryConversationStore(): ConversationStore {
  const byId = new Map<string, ConversationRecord>();
  const byPair = new Map<string, string>();
  const pair = (userId: string, agentId: string): string => `${userId}\u0000${agentId}`;
  return {
    async establish(userId, agentId, newId, nowMs) {
      const id = byPair.get(pair(userId, agentId));
      const existing = id === undefined ? undefined : byId.get(id);
      if (existing === undefined) {
        const conversation: ConversationRecord = {
          conversationId: newId,
          userId,
          agentId,
          state: 'established',
          createdAtMs: nowMs,
          updatedAtMs: nowMs,
        };
        byId.set(newId, conversation);
        byPair.set(pair(userId, agentId), newId);
        return { conversation, changed: true, created: true };
      }
      if (existing.state !== 'revoked') return { conversation: existing, changed: false, created: false };
      const conversation: ConversationRecord = { ...existing, state: 'established', updatedAtMs: nowMs };
      byId.set(existing.conversationId, conversation);
      return { conversation, changed: true, created: false };
    },
    async get(conversationId) {
      return byId.get(conversationId);
    },
    async listByUser(userId) {
      return [...byId.values()]
        .filter((c) => c.userId === userId)
        .sort((a, b) => a.createdAtMs - b.createdAtMs);
    },
    async listByAgent(agentId) {
      return [...byId.values()]
        .filter((c) => c.agentId === agentId)
        .sort((a, b) => a.createdAtMs - b.createdAtMs);
    },
    async transition(conversationId, from, to, nowMs) {
      const c = byId.get(conversationId);
      if (c === undefined || !from.includes(c.state)) return undefined;
      const next: ConversationRecord = { ...c, state: to, updatedAtMs: nowMs };
      byId.set(conversationId, next);
      return next;
    },
  };
}

/** Creates an empty in-memory {@link MessageStore}. */
export function createMemoryMessageStore(): MessageStore {
  const byConversation = new Map<string, MessageRecord[]>();
  const ids = new Map<string, MessageRecord>();
  let seq = 0;
  return {
    async append(message) {
      const key = `${message.conversationId}\u0000${message.messageId}`;
      const existing = ids.get(key);
      if (existing !== undefined) return { message: existing, duplicate: true };
      seq += 1;
      const stored: MessageRecord = { ...message, seq };
      const list = byConversation.get(message.conversationId) ?? [];
      list.push(stored);
      byConversation.set(message.conversationId, list);
      ids.set(key, stored);
      return { message: stored, duplicate: false };
    },
    async list(conversationId, after, limit) {
      const list = byConversation.get(conversationId) ?? [];
      // Sorted by seq: binary search for the first entry after the cursor.
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (list[mid]!.seq <= after) lo = mid + 1;
        else hi = mid;
      }
      return list.slice(lo, lo + limit);
    },
  };
}
