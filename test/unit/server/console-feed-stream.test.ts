/**
 * The live feed's stream on a real server context, without sockets: it
 * starts with `retry` and a snapshot, carries each published event as one
 * `data:` line, unsubscribes when the page goes away (the binding calls
 * `return()`), and ends a page that falls too far behind.
 */
import { describe, expect, it } from 'vitest';
import { createServerContext } from '../../../packages/dev/src/server/create-context.js';
import { feedRoute } from '../../../packages/dev/src/server/console/feed.js';
import { FEED_BACKLOG_MAX, type FeedEvent } from '../../../packages/dev/src/server/console/feed-hub.js';
import type { ServerResponse } from '../../../packages/dev/src/server/http/types.js';

const A1 = '0195523b-0000-4000-8000-000000000001';

function open() {
  const ctx = createServerContext({ dev: true, virtualTime: true, startTimeMs: 0 });
  ctx.agentIds.add(A1);
  const route = feedRoute();
  const res = route.handle({ ctx, params: { id: A1 } } as unknown as Parameters<
    typeof route.handle
  >[0]) as ServerResponse;
  const it = res.stream![Symbol.asyncIterator]();
  const text = async () => new TextDecoder().decode((await it.next()).value as Uint8Array);
  const event = (type: FeedEvent['type']): FeedEvent => ({
    type,
    agent_id: A1,
    at: new Date(0).toISOString(),
    connection_status: 'ready',
    pending_count: 0,
    websocket_connections: 0,
  });
  return { ctx, res, it, text, event };
}

describe('console feed stream', () => {
  it('retry and snapshot first, then one data line per event; return() unsubscribes', async () => {
    const f = open();
    expect(f.res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(await f.text()).toBe(
      `retry: 1000\n\ndata: ${JSON.stringify({ ...f.event('snapshot'), at: '1970-01-01T00:00:00.000Z' })}\n\n`,
    );
    expect(f.ctx.consoleFeed.watching(A1)).toBe(true);
    const next = f.text();
    f.ctx.consoleFeed.publish(f.event('queued'));
    expect(await next).toBe(`data: ${JSON.stringify(f.event('queued'))}\n\n`);
    await f.it.return!();
    expect(f.ctx.consoleFeed.watching(A1)).toBe(false);
    expect(f.ctx.consoleFeed.size).toBe(0);
    expect((await f.it.next()).done).toBe(true);
  });

  it(`a page ${FEED_BACKLOG_MAX} events behind is cut off (it reconnects for a fresh snapshot)`, async () => {
    const f = open();
    await f.text(); // the snapshot
    for (let i = 0; i <= FEED_BACKLOG_MAX; i++) f.ctx.consoleFeed.publish(f.event('attempt_started'));
    expect(f.ctx.consoleFeed.size).toBe(0);
    let chunks = 0;
    for (let r = await f.it.next(); r.done !== true; r = await f.it.next()) chunks++;
    expect(chunks).toBe(FEED_BACKLOG_MAX);
  });
});
