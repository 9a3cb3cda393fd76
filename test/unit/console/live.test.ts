/**
 * The console page's live-feed helpers: the parser of a feed event's data
 * (never throws, keeps only events with a type and an agent id) and the
 * coalescer (one run per animation frame, one more after a run asked for
 * during it).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { coalesce, feedStateLine, parseFeedEvent } from '../../../packages/dev/src/console/live.js';

describe('console live feed: parseFeedEvent', () => {
  it('reads a feed event', () => {
    const e = { type: 'queued', agent_id: 'a1', at: '2026-03-01T12:00:00.000Z', pending_count: 1 };
    expect(parseFeedEvent(JSON.stringify(e))).toEqual(e);
  });

  it('refuses what is not a feed event: not JSON, not an object, no type or agent id', () => {
    for (const bad of [
      '',
      'data: x',
      '{',
      'null',
      '[]',
      '42',
      '"queued"',
      '{"type":"queued"}',
      '{"agent_id":"a"}',
      '{"type":1,"agent_id":"a"}',
    ])
      expect(parseFeedEvent(bad), bad).toBeUndefined();
    expect(parseFeedEvent(undefined)).toBeUndefined();
    expect(parseFeedEvent(new ArrayBuffer(2))).toBeUndefined();
  });

  it('never throws, on any string or JSON value (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (data) => {
          const e = parseFeedEvent(data);
          if (e !== undefined) {
            expect(typeof e.type).toBe('string');
            expect(typeof e.agent_id).toBe('string');
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('names each feed state', () => {
    expect(feedStateLine('live')).toBe('feed: live');
    expect(feedStateLine('reconnecting')).toContain('reconnecting');
    expect(feedStateLine('off')).toBe('feed: off');
  });
});

describe('console live feed: coalesce', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('a burst runs the work once per frame, and once more when asked during a run', async () => {
    const frames: (() => void)[] = [];
    vi.stubGlobal('requestAnimationFrame', (fn: () => void) => frames.push(fn));
    let runs = 0;
    let release: (() => void) | undefined;
    const schedule = coalesce(async () => {
      runs++;
      await new Promise<void>((resolve) => (release = resolve));
    });
    for (let i = 0; i < 10; i++) schedule();
    expect(frames).toHaveLength(1);
    frames.shift()!();
    expect(runs).toBe(1);
    schedule(); // during the run
    schedule();
    expect(frames).toHaveLength(0);
    release!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(frames).toHaveLength(1);
    frames.shift()!();
    expect(runs).toBe(2);
    release!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(frames).toHaveLength(0);
  });
});
