/**
 * Send limits shared by every copy of one agent through a real Redis
 * (`createRedisRateLimiters`): three copies together stay within the
 * service's 5 messages per second, on one virtual clock shared with the
 * reference server; two `Agent` copies proposing a manifest in the same
 * minute wait for each other; fallback to local limits with one warning and back; a
 * frozen clock never stalls; what the limiter leaves in Redis is only times
 * and random ids.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type Clock } from '../../../packages/sdk/src/core/clock.js';
import { Agent } from '../../../packages/sdk/src/index.js';
import { MemoryKeyStore } from '../../../packages/sdk/src/crypto/index.js';
import type { ManifestRevision } from '../../../packages/sdk/src/protocol.js';
import { createRestClient, type RestClient } from '../../../packages/sdk/src/transport/rest/index.js';
import { createRedisRateLimiters, type RedisEvalClient } from '../../../packages/sdk/src/webhook/redis.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { recordingLogger, signUp, startAgent } from '../../helpers/client-setup.js';
import { connectRedis, deleteKeys, skipRedis, uniquePrefix } from '../../helpers/redis.js';
import { startAgentServer } from '../../helpers/server-agents.js';
import { sampleManifest } from '../../fixtures/manifests/manifests.js';

const T0 = Date.parse('2026-11-27T12:00:00Z');
const PLAINTEXT_MARKER = 'PLAINTEXT-MARKER-7f3a shared limits';
/** Every token the copies used, to look for at rest. */
const tokensUsed: string[] = [];

/** Event-loop turns until `done()` holds (no timers: Redis answers arrive as I/O). */
async function settle(done: () => boolean): Promise<void> {
  for (let turn = 0; !done(); turn += 1) {
    if (turn > 20_000) throw new Error('did not settle');
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

describe.skipIf(skipRedis)('shared send limits through Redis (real redis-server)', () => {
  let redis: Redis;
  const prefix = uniquePrefix('limits');

  beforeAll(async () => {
    redis = await connectRedis();
  });
  afterAll(async () => {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  describe('copies of one agent against the reference server', () => {
    const clock = new ManualClock(T0);
    let server: ReferenceServer;
    let agentId: string;
    let token: string;

    beforeAll(async () => {
      server = await startAgentServer({ clock });
      const { client } = await signUp(server);
      const created = await client.createAgent({ name: 'Shared limits' });
      agentId = created.agentId;
      token = created.token;
      tokensUsed.push(token);
      await startAgent(server, agentId, token, { clock });
    });
    afterAll(() => server.close());

    /** One copy's REST client; `shared` limits come from Redis, else each copy limits itself. */
    function copy(shared: boolean): { rest: RestClient; rateLimited: string[] } {
      const limiters = shared
        ? { rateLimiters: createRedisRateLimiters({ client: redis, agentId, keyPrefix: prefix, clock }) }
        : {};
      const rest = createRestClient({ baseUrl: server.url, credentials: token, clock, ...limiters });
      const rateLimited: string[] = [];
      rest.on('rateLimited', (info) => rateLimited.push(info.code));
      return { rest, rateLimited };
    }

    /** Posts a message the server refuses once past its rate limit (403: no such conversation): 429 = over the limit. */
    function send(rest: RestClient, outcomes: number[]): void {
      rest
        .request({
          method: 'POST',
          path: `/agents/${agentId}/messages`,
          body: { conversation_id: 'conv_x', wire_envelope: PLAINTEXT_MARKER },
          limiter: 'messages',
          maxAttempts: 1,
        })
        .then(
          () => outcomes.push(200),
          (error: unknown) => outcomes.push((error as { status?: number }).status ?? -1),
        );
    }

    it('each copy limiting itself: three copies make the service answer 429', async () => {
      clock.advance(60_000);
      const copies = [copy(false), copy(false), copy(false)];
      const outcomes: number[] = [];
      for (const c of copies) for (let i = 0; i < 3; i += 1) send(c.rest, outcomes);
      await settle(() => outcomes.length === 9);
      expect(outcomes.filter((s) => s === 429).length).toBe(4);
    });

    it('sharing the limit through Redis: 5 per second across copies, never a 429', async () => {
      clock.advance(60_000);
      const copies = [copy(true), copy(true), copy(true)];
      const outcomes: number[] = [];
      for (const c of copies) for (let i = 0; i < 4; i += 1) send(c.rest, outcomes);
      // 12 sends: 5 in this second, 5 in the next, 2 in the one after.
      await settle(() => outcomes.length === 5 && clock.pendingTimers >= 3);
      clock.advance(1000);
      await settle(() => outcomes.length === 10);
      clock.advance(1000);
      await settle(() => outcomes.length === 12);
      expect(outcomes.filter((status) => status === 429)).toEqual([]);
      expect(new Set(outcomes)).toEqual(new Set([403])); // admitted, then refused for the made-up conversation
      expect(copies.flatMap((c) => c.rateLimited)).toEqual([]);
    });

    describe('two copies of one agent updating its manifest in the same minute', () => {
      // Its own agent on the same server and clock: the manifest's head version starts at 0.
      let copyAgentId: string;
      let copyToken: string;

      beforeAll(async () => {
        const { client } = await signUp(server);
        const created = await client.createAgent({ name: 'Manifest copies' });
        copyAgentId = created.agentId;
        copyToken = created.token;
        tokensUsed.push(copyToken);
        await startAgent(server, copyAgentId, copyToken, { clock });
      });

      /** One copy as an `Agent` (REST only, never connected); `shared`: its limiters come from Redis. */
      function agentCopy(shared: boolean): { agent: Agent; rateLimited: string[]; heads: number[] } {
        const agent = new Agent({
          baseUrl: server.url,
          agentId: copyAgentId,
          token: copyToken,
          keyStore: new MemoryKeyStore({ clock }),
          clock,
          logger: false,
          shutdownSignals: false,
          ...(shared
            ? {
                rateLimiters: createRedisRateLimiters({
                  client: redis,
                  agentId: copyAgentId,
                  keyPrefix: prefix,
                  clock,
                }),
              }
            : {}),
        });
        const rateLimited: string[] = [];
        agent.on('rateLimited', (info) => void rateLimited.push(info.code));
        return { agent, rateLimited, heads: [] };
      }

      /** Proposes a manifest the way a starting copy does: read the head, propose on it, re-read on a conflict. */
      function propose(copy: ReturnType<typeof agentCopy>, name: string, done: ManifestRevision[]): void {
        void copy.agent.manifest
          .updateWithRetry((state) => {
            copy.heads.push(state.head_version);
            return sampleManifest(name);
          })
          .then((revision) => void done.push(revision));
      }

      it("each copy limiting itself: the second update in the minute meets the service's 429", async () => {
        const copies = [agentCopy(false), agentCopy(false)];
        const done: ManifestRevision[] = [];
        propose(copies[0]!, '1.0.0', done);
        await settle(() => done.length === 1);
        const controller = new AbortController();
        const second = copies[1]!.agent.manifest.update(sampleManifest('1.0.1'), {
          basedOnVersion: 1,
          signal: controller.signal,
        });
        await settle(() => copies[1]!.rateLimited.length === 1);
        expect(copies[1]!.rateLimited).toEqual(['MANIFEST_UPDATE_RATE_LIMITED']);
        controller.abort(new Error('enough'));
        await expect(second).rejects.toThrow('enough');
      });

      it('sharing the manifests limiter through Redis: one update reaches the service, the other waits its minute', async () => {
        clock.advance(60_000);
        const base = (await agentCopy(false).agent.manifest.get()).head_version;
        const copies = [agentCopy(true), agentCopy(true)];
        const done: ManifestRevision[] = [];
        propose(copies[0]!, '2.0.0', done);
        propose(copies[1]!, '2.0.1', done);
        // One is accepted; the other waits on the shared limiter (a timer on the virtual clock).
        await settle(() => done.length === 1 && clock.pendingTimers >= 1);
        expect(done[0]!.version).toBe(base + 1);
        const loser = done[0]!.manifest.version === '2.0.0' ? copies[1]! : copies[0]!;
        expect((await loser.agent.manifest.get()).head_version).toBe(base + 1);
        // A minute later it proposes on the head it read (a conflict: re-read) and waits the next minute.
        clock.advance(60_000);
        await settle(() => loser.heads.length === 2 && clock.pendingTimers >= 1);
        expect(done).toHaveLength(1);
        clock.advance(60_000);
        await settle(() => done.length === 2);
        expect(done[1]!.version).toBe(base + 2);
        expect(loser.heads).toEqual([base, base + 1]);
        // Never a 429: the copies waited for each other instead.
        expect(copies.flatMap((c) => c.rateLimited)).toEqual([]);
      });
    });
  });

  it('falls back to local limits with one warning while Redis fails, and shares again when it answers', async () => {
    const clock = new ManualClock(T0);
    let down = false;
    const flaky: RedisEvalClient = {
      eval: (script, numKeys, ...args) =>
        down ? Promise.reject(new Error('connect ECONNREFUSED')) : redis.eval(script, numKeys, ...args),
    };
    const logger = recordingLogger();
    const limits = createRedisRateLimiters({
      client: flaky,
      agentId: 'agt_fallback',
      keyPrefix: prefix,
      clock,
      logger,
      retryRedisAfterMs: 5000,
    });
    await limits.messages.acquire();
    expect(limits.messages.mode).toBe('shared');
    down = true;
    for (let i = 0; i < 5; i += 1) await limits.messages.acquire();
    for (let i = 0; i < 3; i += 1) await limits.objects.acquire();
    await limits.manifests.acquire();
    expect(limits.messages.mode).toBe('local');
    expect(limits.objects.mode).toBe('local');
    expect(limits.manifests.mode).toBe('local');
    // The manifest limit holds locally too: a second update in the minute waits for it.
    let secondManifest = false;
    void limits.manifests.acquire().then(() => (secondManifest = true));
    // Local limits still hold: the sixth local start in this second waits.
    let sixth = false;
    void limits.messages.acquire().then(() => (sixth = true));
    await settle(() => clock.pendingTimers > 0);
    expect(sixth).toBe(false);
    clock.advance(1000);
    await settle(() => sixth);
    down = false;
    clock.advance(5000);
    await limits.files.acquire();
    expect(limits.messages.mode).toBe('shared');
    expect(secondManifest).toBe(false);
    clock.advance(60_000);
    await settle(() => secondManifest);
    const warnings = logger.lines.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/Redis is unreachable, using local limits/);
    expect(logger.lines.filter((l) => l.level === 'info').map((l) => l.message)).toEqual([
      'shared rate limits: Redis answers again, limits are shared again',
    ]);
  });

  it('a frozen clock whose timers fire never stalls the limiter', async () => {
    const timers = new Map<number, ReturnType<typeof setTimeout>>();
    let nextId = 0;
    const frozen: Clock = {
      now: () => T0,
      setTimeout: (fn, ms) => {
        const id = (nextId += 1);
        // Timers fire 10 times faster than they say (the clock never moves anyway).
        timers.set(
          id,
          setTimeout(() => (timers.delete(id), fn()), ms / 10),
        );
        return { id };
      },
      clearTimeout: (handle) => {
        clearTimeout(timers.get(handle.id));
        timers.delete(handle.id);
      },
    };
    const limits = createRedisRateLimiters({
      client: redis,
      agentId: 'agt_frozen',
      keyPrefix: prefix,
      clock: frozen,
      operationTimeoutMs: 60_000, // 6 s of real time: Redis answers long before
    });
    await Promise.all(Array.from({ length: 7 }, () => limits.messages.acquire()));
    expect(limits.messages.pending).toBe(0);
  });

  it('an aborted waiter leaves the queue without a slot', async () => {
    const clock = new ManualClock(T0);
    const limits = createRedisRateLimiters({ client: redis, agentId: 'agt_abort', keyPrefix: prefix, clock });
    for (let i = 0; i < 5; i += 1) await limits.messages.acquire();
    const controller = new AbortController();
    const waiting = limits.messages.acquire(controller.signal);
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    expect(limits.messages.pending).toBe(0);
  });

  it('nothing readable at rest: the limiter leaves start times and random ids under a one-window TTL', async () => {
    const clock = new ManualClock(T0);
    const limits = createRedisRateLimiters({ client: redis, agentId: 'agt_rest', keyPrefix: prefix, clock });
    await limits.files.acquire();
    const key = `${prefix}agt_rest:files`;
    const members = await redis.zrange(key, '0', '-1');
    expect(members).toHaveLength(1);
    expect(members[0]).toMatch(/^\d+:[0-9a-f]{16}$/);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1000);
    // Nothing readable at rest: every limiter key of this file still alive holds times and random ids only.
    const dump: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      for (const key of keys) dump.push(key, ...(await redis.zrange(key, '0', '-1')));
      cursor = next;
    } while (cursor !== '0');
    expect(dump.length).toBeGreaterThan(0);
    const text = dump.join('\n');
    expect(text).not.toContain('PLAINTEXT-MARKER');
    expect(text).not.toMatch(/hsk_/);
    for (const t of tokensUsed) expect(text).not.toContain(t.slice(4));
    for (const entry of dump) expect(entry).toMatch(/^(ams:test:\S+|\d+:[0-9a-f]{16})$/);
  });
});
