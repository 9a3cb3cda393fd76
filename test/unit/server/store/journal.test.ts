/**
 * The journal store of `ams serve --data` (issue #28): what is replayed after
 * a restart, a crash mid-write, a foreign file, and what is never written.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JOURNAL_FILE, openJournalStore } from '../../../../packages/dev/src/server/store/journal.js';
import type { AgentRecord } from '../../../../packages/dev/src/server/store/agent-types.js';

const dirs: string[] = [];
const fresh = (): string => {
  const dir = join(mkdtempSync(join(tmpdir(), 'ams-journal-')), 'data');
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(join(d, '..'), { recursive: true, force: true });
});

const agent = (id: string): AgentRecord => ({
  agentId: id,
  ownerId: 'u1',
  name: 'bot',
  createdAtMs: 1,
  tokens: [{ tokenId: 't1', hash: '$2b$04$hash', createdAtMs: 1, validUntilMs: undefined }],
  keys: undefined,
  retiredKeys: [],
  keyRotationPending: false,
  governance: { level: 'none', reason: null, updatedAtMs: 1 },
});

describe('journal store', () => {
  it('replays accounts, devices, agents (their updates) and relations; codes and messages are not kept', async () => {
    const dir = fresh();
    const a = await openJournalStore(dir);
    await a.users.create({
      userId: 'u1',
      email: 'a@example.com',
      emailVerified: true,
      displayName: 'A',
      deviceLocale: 'en',
      passwordHash: '$scrypt$…',
      createdAtMs: 1,
    });
    await a.users.recordLoginFailure('u1', 2, { maxFailures: 5, lockMs: 1000 });
    expect(await a.agents.create(agent('g1'), 1)).toMatchObject({ agentId: 'g1' });
    await a.agents.update('g1', (r) => ({ ...r, name: 'renamed' }));
    await a.agents.update('g1', () => ({ refused: 'no' }));
    await a.conversations.establish('u1', 'g1', 'c1', 3);
    await a.codes.put('a@example.com', 'login', '123456', 10, 5);
    expect(statSync(join(dir, JOURNAL_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);

    const b = await openJournalStore(dir);
    expect(await b.users.byEmail('a@example.com')).toMatchObject({ userId: 'u1', failedLogins: 1 });
    expect(await b.agents.get('g1')).toMatchObject({ name: 'renamed', tokens: [{ hash: '$2b$04$hash' }] });
    expect((await b.conversations.listByUser('u1')).map((c) => c.conversationId)).toEqual(['c1']);
    expect(await b.codes.consume('a@example.com', 'login', '123456', 4)).toBe('missing');
    // The per-owner limit was checked when the agent was made, not again at replay.
    expect(await b.agents.create(agent('g2'), 1)).toBe('limit');
  });

  it('ignores a last line cut short by a crash; refuses a line in the middle that is not its own', async () => {
    const dir = fresh();
    const a = await openJournalStore(dir);
    await a.agents.create(agent('g1'), 1);
    appendFileSync(join(dir, JOURNAL_FILE), '{"s":"agents","m":"cre');
    const b = await openJournalStore(dir);
    expect(await b.agents.get('g1')).toMatchObject({ agentId: 'g1' });
    await b.agents.create(agent('g2'), 2); // on a line of its own, after the cut
    const c = await openJournalStore(dir);
    expect((await c.agents.all()).map((r) => r.agentId)).toEqual(['g1', 'g2']);

    const text = readFileSync(join(dir, JOURNAL_FILE), 'utf8');
    writeFileSync(join(dir, JOURNAL_FILE), `not json\n${text}`);
    await expect(openJournalStore(dir)).rejects.toThrow(/line 1 is not JSON/);
    writeFileSync(join(dir, JOURNAL_FILE), '{"s":"users","m":"byEmail","a":["x"]}\n');
    await expect(openJournalStore(dir)).rejects.toThrow(/unknown entry users\.byEmail/);
  });
});
