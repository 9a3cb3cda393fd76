import { describe, expect, it } from 'vitest';
import { RedisJournal } from '../../../../packages/sdk/src/webhook/dedup/redis-journal.js';

describe('the Redis store’s journal (what a copy writes back when Redis lost its keys)', () => {
  it('gives back completions with the rest of their window and held claims with the rest of their lease', () => {
    const j = new RedisJournal(300_000, 10);
    j.completed('p:a', 86_400_000, 1_000);
    j.claimed('p:b', 'token-b', 15_000, 1_000);
    expect(j.marks(6_000)).toEqual([
      { key: 'p:a', value: 'done', pxLeft: 86_395_000 },
      { key: 'p:b', value: 'token-b', pxLeft: 10_000 },
    ]);
  });

  it('forgets a completion after journalMs and a claim when its lease ends, is released, or another token asks', () => {
    const j = new RedisJournal(300_000, 10);
    j.completed('p:a', 86_400_000, 0);
    j.claimed('p:b', 'token-b', 15_000, 0);
    j.claimed('p:c', 'token-c', 15_000, 0);
    j.released('p:c', 'someone-else');
    j.renewed('p:b', 'someone-else', 60_000, 10_000); // not its holder: no effect
    expect(j.marks(14_000).map((m) => m.key)).toEqual(['p:a', 'p:b', 'p:c']);
    j.released('p:c', 'token-c');
    expect(j.marks(16_000).map((m) => m.key)).toEqual(['p:a']); // b's lease ended
    expect(j.prune(300_000)).toBe(false);
    expect(j.size).toBe(0);
  });

  it('keeps a renewed claim, and a claim that completed becomes a completion', () => {
    const j = new RedisJournal(300_000, 10);
    j.claimed('p:b', 'token-b', 15_000, 0);
    j.renewed('p:b', 'token-b', 15_000, 10_000);
    expect(j.marks(20_000)).toEqual([{ key: 'p:b', value: 'token-b', pxLeft: 5_000 }]);
    j.completed('p:b', 86_400_000, 20_000);
    expect(j.marks(20_000)).toEqual([{ key: 'p:b', value: 'done', pxLeft: 86_400_000 }]);
  });

  it('is bounded: past journalMax the oldest entry is dropped', () => {
    const j = new RedisJournal(300_000, 3);
    for (const key of ['p:1', 'p:2', 'p:3', 'p:4']) j.completed(key, 86_400_000, 0);
    j.completed('p:2', 86_400_000, 1); // written again: now the newest
    j.completed('p:5', 86_400_000, 2);
    expect(j.size).toBe(3);
    expect(j.marks(3).map((m) => m.key)).toEqual(['p:4', 'p:2', 'p:5']);
  });
});
