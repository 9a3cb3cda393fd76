/**
 * Status (#26) end to end against the reference server, in WebSocket and
 * webhook mode: `ctx.status(text)` reaches the human sealed as `status` and
 * the reply clears it; the automatic indicator shows while a handler runs and
 * is cleared at the end of the turn; the service's limit (4 per 2 s per agent
 * and conversation) answers a typed `RATE_LIMITED`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isRateLimitError, isServiceError } from '../../../packages/sdk/src/core/errors/index.js';
import { PRESENCE_ROUTES, routePath } from '../../../packages/sdk/src/core/protocol/service-names.js';
import { STATUS_LIMITS } from '../../../packages/sdk/src/core/protocol/status.js';
import type { StatusUpdate } from '../../../packages/sdk/src/client/user-status.js';
import { createTestWorld, type TestWorld } from '../../../packages/dev/src/testing/index.js';

let world: TestWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Resolves with the first update that `pick` accepts (updates seen before included). */
function statusWatch(w: TestWorld) {
  const seen: StatusUpdate[] = [];
  const waiters: { pick: (u: StatusUpdate) => boolean; resolve: (u: StatusUpdate) => void }[] = [];
  w.user.on('status', (u) => {
    seen.push(u);
    for (const x of [...waiters]) {
      if (x.pick(u)) {
        waiters.splice(waiters.indexOf(x), 1);
        x.resolve(u);
      }
    }
  });
  return {
    seen,
    next: (pick: (u: StatusUpdate) => boolean) =>
      new Promise<StatusUpdate>((resolve) => {
        const hit = seen.find(pick);
        if (hit !== undefined) resolve(hit);
        else waiters.push({ pick, resolve });
      }),
  };
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe.each(['websocket', 'webhook'] as const)('status, %s mode', (mode) => {
  it('ctx.status(text) reaches the human as a sealed status; the reply clears it', async () => {
    const w = (world = await createTestWorld({ agent: { mode, options: { status: false } } }));
    const watch = statusWatch(w);
    const messages: string[] = [];
    w.user.on('message', (m) => messages.push(m.event));
    await w.user.connect();
    const release = gate();
    w.agent.use(async (ctx) => {
      await ctx.status('searching the web…');
      await release.opened;
      await ctx.reply('found it');
    });
    await w.sendAsUser('find x');
    const working = await watch.next((u) => u.state === 'working');
    expect(working).toMatchObject({
      conversationId: w.conversationId,
      senderId: w.agentId,
      state: 'working',
      text: 'searching the web…',
    });
    expect(w.user.statuses(w.conversationId)).toHaveLength(1);
    release.open();
    const cleared = await watch.next((u) => u.state === 'idle');
    expect(cleared).toMatchObject({ state: 'idle', text: null, reason: 'replied' });
    expect(w.user.statuses()).toEqual([]);
    expect(messages).toEqual(['message.new']); // a status is never a message
  });

  it('the automatic indicator shows while the handler runs and is cleared at the end of the turn', async () => {
    const w = (world = await createTestWorld({ agent: { mode, options: { status: { delayMs: 0 } } } }));
    const watch = statusWatch(w);
    await w.user.connect();
    const release = gate();
    const ended = gate();
    w.agent.on('message.new', async () => {
      await release.opened;
      ended.open();
    });
    await w.sendAsUser('think hard');
    const working = await watch.next((u) => u.state === 'working');
    expect(working).toMatchObject({ senderId: w.agentId, text: null });
    release.open();
    await ended.opened;
    const cleared = await watch.next((u) => u.state === 'idle');
    expect(cleared).toMatchObject({ text: null, reason: 'cleared' });
  });
});

describe('the service limit', () => {
  it('a fifth status post within 2 s of the same agent and conversation is a RateLimitError RATE_LIMITED', async () => {
    // The world's server runs on a virtual clock: the window does not move during the test.
    // The limit counts before the envelope check, so unsealed posts show it as well.
    const w = (world = await createTestWorld());
    const post = () =>
      w.agent.api.rest
        .request({
          method: PRESENCE_ROUTES.setStatus.method,
          path: routePath(PRESENCE_ROUTES.setStatus, { id: w.conversationId }),
          body: { wire_envelope: 'AAAA' },
          maxAttempts: 1,
        })
        .catch((e: unknown) => e);
    for (let i = 0; i < STATUS_LIMITS.serverLimit; i++) {
      expect(isServiceError(await post(), 'INVALID_ENVELOPE')).toBe(true);
    }
    const refused = await post();
    expect(isRateLimitError(refused)).toBe(true);
    expect(isServiceError(refused) && refused.code).toBe('RATE_LIMITED');
    expect(isServiceError(refused) && refused.params).toMatchObject({ limit: 4, window_ms: 2000 });
  });
});
