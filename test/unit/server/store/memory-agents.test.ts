import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentRecord } from '../../../../packages/dev/src/server/store/agent-types.js';
import {
  createMemoryAgentStore,
  createMemoryConversationStore,
  createMemoryMessageStore,
} from '../../../../packages/dev/src/server/store/memory-agents.js';

const agent = (agentId: string, ownerId: string): AgentRecord => ({
  agentId,
  ownerId,
  name: agentId,
  createdAtMs: 0,
  tokens: [],
  keys: undefined,
  retiredKeys: [],
  keyRotationPending: false,
  governance: { level: 'none', reason: null, updatedAtMs: 0 },
});

describe('memory agent store', () => {
  it('enforces the per-owner limit atomically under concurrent creates', async () => {
    const store = createMemoryAgentStore();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => store.create(agent(`a${i}`, 'u'), 3)),
    );
    expect(results.filter((r) => r !== 'limit')).toHaveLength(3);
    expect(await store.listByOwner('u')).toHaveLength(3);
    expect(await store.create(agent('b', 'other'), 3)).not.toBe('limit');
  });

  it('update applies a change or passes a refusal through', async () => {
    const store = createMemoryAgentStore();
    await store.create(agent('a', 'u'), 5);
    expect(await store.update('a', (a) => ({ ...a, name: 'renamed' }))).toMatchObject({ name: 'renamed' });
    expect(await store.update<'no'>('a', () => ({ refused: 'no' }))).toEqual({ refused: 'no' });
    expect((await store.get('a'))?.name).toBe('renamed');
    expect(await store.update('missing', (a) => a)).toBeUndefined();
  });
});

describe('memory conversation store', () => {
  it('one conversation per (user, agent); revoke and re-establish keeps the id', async () => {
    const store = createMemoryConversationStore();
    const first = await store.establish('u', 'a', 'c1', 1);
    expect(first).toMatchObject({ changed: true, created: true, conversation: { conversationId: 'c1' } });
    expect(await store.establish('u', 'a', 'c2', 2)).toMatchObject({ changed: false, created: false });
    expect(await store.transition('c1', ['established'], 'revoked', 3)).toMatchObject({ state: 'revoked' });
    expect(await store.transition('c1', ['established'], 'suspended', 4)).toBeUndefined();
    expect(await store.establish('u', 'a', 'c3', 5)).toMatchObject({
      changed: true,
      created: false,
      conversation: { conversationId: 'c1', state: 'established' },
    });
  });
});

describe('memory message store', () => {
  it('property: list(after, limit) returns the next messages in order, without gaps or repeats', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 7 }), async (n, limit) => {
        const store = createMemoryMessageStore();
        for (let i = 0; i < n; i++) {
          await store.append({
            messageId: `m${i}`,
            conversationId: 'c',
            senderId: 's',
            createdAt: '2026-01-01T00:00:00.000Z',
            receivedAtMs: i,
            wireEnvelope: 'AAAA',
          });
        }
        const seen: string[] = [];
        let after = 0;
        for (;;) {
          const page = await store.list('c', after, limit);
          if (page.length === 0) break;
          expect(page.length).toBeLessThanOrEqual(limit);
          seen.push(...page.map((m) => m.messageId));
          after = page[page.length - 1]!.seq;
        }
        expect(seen).toEqual(Array.from({ length: n }, (_, i) => `m${i}`));
      }),
      { numRuns: 50 },
    );
  });

  it('a repeated message id is reported as a duplicate with the stored message', async () => {
    const store = createMemoryMessageStore();
    const m = {
      messageId: 'x',
      conversationId: 'c',
      senderId: 's',
      createdAt: 't',
      receivedAtMs: 0,
      wireEnvelope: 'A',
    };
    const first = await store.append(m);
    const again = await store.append({ ...m, wireEnvelope: 'B' });
    expect(again).toEqual({ message: first.message, duplicate: true });
  });
});
