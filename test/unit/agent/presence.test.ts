/**
 * The agent's status beacon (#26) on a virtual clock: coalescing (one post
 * per second per conversation, the latest state wins), the automatic
 * indicator after the delay, the keep-alive while a turn runs, the clear at
 * the end of a turn, nothing posted for a turn that replied fast; and the
 * status payload parser, fuzzed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { silentLogger } from '../../../packages/sdk/src/core/logger.js';
import { isValidationError } from '../../../packages/sdk/src/core/errors/index.js';
import { parseStatusPayload, STATUS_LIMITS } from '../../../packages/sdk/src/core/protocol/status.js';
import {
  holdWhileOpen,
  resolveStatusOptions,
  StatusBeacon,
  type StatusIndicatorOptions,
} from '../../../packages/sdk/src/agent/presence.js';
import type { MessageSender } from '../../../packages/sdk/src/messaging/sender.js';
import type { StreamWriter } from '../../../packages/sdk/src/agent/streams/writer.js';
import { StreamError, ValidationError } from '../../../packages/sdk/src/core/errors/index.js';
import type { RestClient } from '../../../packages/sdk/src/transport/rest/client.js';

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function beacon(options: StatusIndicatorOptions = {}) {
  const clock = new ManualClock(Date.parse('2026-11-27T00:00:00.000Z'));
  const posted: { at: number; conversationId: string; payload: Record<string, unknown> }[] = [];
  let fail: Error | undefined;
  const sender = {
    sealAndPost: (conversationId: string, payload: Record<string, unknown>) => {
      posted.push({ at: clock.now(), conversationId, payload });
      return fail === undefined ? Promise.resolve({ delivered: true }) : Promise.reject(fail);
    },
  } as unknown as MessageSender;
  const b = new StatusBeacon({
    options: resolveStatusOptions(options),
    clock,
    logger: silentLogger,
    rest: () => ({}) as RestClient,
    sender: () => Promise.resolve(sender),
  });
  const advance = async (ms: number) => {
    clock.advance(ms);
    await flush();
  };
  return { b, clock, posted, advance, failWith: (e: Error | undefined) => (fail = e) };
}

describe('StatusBeacon', () => {
  it('coalesces a chatty author to one post per second, the latest text winning', async () => {
    const { b, posted, advance } = beacon({ auto: false });
    const end = b.beginTurn('c1');
    const first = b.set('c1', 'step 0');
    for (let i = 1; i <= 50; i++) void b.set('c1', `step ${i}`);
    await first;
    expect(posted.map((p) => p.payload['text'])).toEqual(['step 0']);
    await advance(STATUS_LIMITS.clientMinIntervalMs);
    expect(posted.map((p) => p.payload['text'])).toEqual(['step 0', 'step 50']);
    // The server allows 4 per 2 s: the client never comes near.
    expect(posted.length).toBeLessThanOrEqual(STATUS_LIMITS.serverLimit);
    end();
    await advance(STATUS_LIMITS.clientMinIntervalMs);
    expect(posted.at(-1)?.payload).toEqual({ type: 'status', state: 'idle' });
  });

  it('the automatic indicator: posted after the delay, kept alive every ttl/3, cleared at the end of the turn', async () => {
    const { b, posted, advance } = beacon({ delayMs: 500, ttlMs: 3000 });
    const end = b.beginTurn('c1');
    await advance(499);
    expect(posted).toHaveLength(0);
    await advance(1);
    expect(posted.map((p) => p.payload)).toEqual([{ type: 'status', state: 'working', ttl_ms: 3000 }]);
    await advance(1000);
    expect(posted).toHaveLength(2);
    await advance(1000);
    expect(posted).toHaveLength(3);
    end();
    await advance(1000); // the clear waits for the end of the coalescing interval
    expect(posted.at(-1)?.payload).toEqual({ type: 'status', state: 'idle' });
    await advance(60_000);
    expect(posted).toHaveLength(4);
  });

  it('a turn that replies before the delay posts nothing; a reply clears without a post', async () => {
    const { b, posted, advance } = beacon({ delayMs: 500 });
    const end = b.beginTurn('c1');
    b.replied('c1');
    await advance(1000);
    end();
    await advance(5000);
    expect(posted).toHaveLength(0);

    const end2 = b.beginTurn('c2');
    await b.set('c2', 'searching the web…');
    b.replied('c2');
    end2();
    await advance(60_000);
    expect(posted.map((p) => p.payload['state'])).toEqual(['working']);
  });

  it('off: no automatic indicator; a status outside a turn goes once, without keep-alive', async () => {
    const { b, posted, advance } = beacon(false as unknown as StatusIndicatorOptions);
    const end = b.beginTurn('c1');
    await advance(10_000);
    end();
    expect(posted).toHaveLength(0);
    await b.set('c1', 'indexing');
    await advance(60_000);
    expect(posted).toHaveLength(1);
  });

  it('a refused post rejects the caller; the running turn posts again on its keep-alive', async () => {
    const { b, posted, advance, failWith } = beacon({ auto: false, ttlMs: 3000 });
    const end = b.beginTurn('c1');
    failWith(new Error('429'));
    await expect(b.set('c1', 'x')).rejects.toThrow('429');
    failWith(undefined);
    await advance(1000);
    expect(posted).toHaveLength(2);
    end();
    b.close(); // closed before the clear could go: receivers drop the status after its TTL
    await advance(60_000);
    expect(posted).toHaveLength(2);
  });

  it('a reply stream that outlives its handler holds the indicator (kept alive) until it ends', async () => {
    const { b, posted, advance } = beacon({ delayMs: 500, ttlMs: 3000 });
    const endTurn = b.beginTurn('c1');
    await advance(500);
    expect(posted.map((p) => p.payload['state'])).toEqual(['working']);
    const release = b.hold('c1'); // the stream opened in the turn
    endTurn(); // the handler returned; the stream goes on
    await advance(1000);
    await advance(1000);
    // Kept alive, not cleared (was: idle one interval after the handler returned).
    expect(posted.map((p) => p.payload['state'])).toEqual(['working', 'working', 'working']);
    release(); // the stream ended
    await advance(1000);
    expect(posted.at(-1)?.payload).toEqual({ type: 'status', state: 'idle' });
    // Outside a turn nothing is held.
    const none = b.hold('c2');
    none();
    await advance(1000);
    expect(posted.filter((p) => p.conversationId === 'c2')).toHaveLength(0);
  });

  it('holdWhileOpen releases once the writer ended, aborted or failed, not on a bad input', async () => {
    const make = (fail: unknown): StreamWriter =>
      ({
        end: () => Promise.resolve({ streamId: 's', text: '', deltas: 0 }),
        abort: () => Promise.resolve(),
        write: () => (fail === undefined ? Promise.resolve() : Promise.reject(fail)),
        reasoning: () => Promise.resolve(),
        step: () => Promise.resolve(),
        toolCall: () => Promise.resolve(),
        toolResult: () => Promise.resolve(),
        source: () => Promise.resolve(),
      }) as unknown as StreamWriter;
    const count = async (fail: unknown, use: (w: StreamWriter) => Promise<unknown>): Promise<number> => {
      let released = 0;
      const w = make(fail);
      holdWhileOpen(w, () => released++);
      await use(w).catch(() => undefined);
      return released;
    };
    expect(await count(undefined, (w) => w.write('x'))).toBe(0);
    expect(await count(undefined, (w) => w.end())).toBe(1);
    expect(await count(undefined, (w) => w.abort())).toBe(1);
    const lost = new StreamError({
      reason: 'client_offline',
      code: 'NOT_FOUND',
      status: 404,
      message: 'offline',
      streamId: 's',
    });
    expect(await count(lost, (w) => w.write('x'))).toBe(1);
    const bad = new ValidationError({ message: 'too long', issues: [] });
    expect(await count(bad, (w) => w.write('x'))).toBe(0);
  });

  it('refuses a text above 200 characters and bad options', async () => {
    const { b } = beacon();
    const err = await b.set('c1', 'x'.repeat(201)).catch((e: unknown) => e);
    expect(isValidationError(err)).toBe(true);
    expect(() => resolveStatusOptions({ ttlMs: 10 })).toThrow(/status.ttlMs/);
    expect(() => resolveStatusOptions({ delayMs: -1 })).toThrow(/status.delayMs/);
  });
});

describe('parseStatusPayload (fast-check)', () => {
  it('accepts exactly the documented shape, never throws anything but a ValidationError', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            type: fc.oneof(fc.constant('status'), fc.string()),
            state: fc.oneof(fc.constantFrom('working', 'idle'), fc.string()),
            text: fc.oneof(fc.string({ maxLength: 250 }), fc.integer()),
            ttl_ms: fc.oneof(fc.integer({ min: -10, max: 70_000 }), fc.double()),
            extra: fc.anything(),
          },
          { requiredKeys: [] },
        ),
        (input) => {
          let ok: boolean;
          try {
            parseStatusPayload(input);
            ok = true;
          } catch (e) {
            expect(isValidationError(e)).toBe(true);
            ok = false;
          }
          const expected =
            input.type === 'status' &&
            (input.state === 'working' || input.state === 'idle') &&
            !('extra' in input) &&
            (!('text' in input) ||
              (typeof input.text === 'string' && input.text.length >= 1 && input.text.length <= 200)) &&
            (!('ttl_ms' in input) ||
              (Number.isInteger(input.ttl_ms) &&
                (input.ttl_ms as number) >= 1000 &&
                (input.ttl_ms as number) <= 60_000));
          expect(ok).toBe(expected);
        },
      ),
      { seed: 26, numRuns: 400 },
    );
  });
});
