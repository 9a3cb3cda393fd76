/**
 * Turns end to end against the reference server, in WebSocket and webhook
 * mode (issue #26): the human stops a running turn (ctx.signal aborts, a
 * model call made with it is cancelled, the reply stream ends `stopped`, both
 * sides get typed events), an artifact awaited inside a handler (the first
 * example of docs/artifacts.md), and the strategies (latest, debounce,
 * concurrent), plus the shutdown deadline.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock, TimerHandle } from '../../../packages/sdk/src/core/clock.js';
import type { AgentMode, AgentOptions, AgentWebhookOptions } from '../../../packages/sdk/src/index.js';
import type { MessageContext } from '../../../packages/sdk/src/agent/context.js';
import { isMessage } from '../../../packages/sdk/src/agent/context.js';
import type { TurnStoppedEvent } from '../../../packages/sdk/src/agent/turns/stop.js';
import type { StreamFailure, TurnStoppedNotice } from '../../../packages/sdk/src/client/index.js';
import type { ReceivedArtifact } from '../../../packages/sdk/src/client/user-artifacts.js';
import { systemClock } from '../../../packages/sdk/src/core/clock.js';
import { createTestWorld, type TestWorld } from '../../../packages/dev/src/testing/index.js';

let world: TestWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Polls `check` until it returns a value (real time). */
async function until<T>(check: () => T | undefined, what: string, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * A fake model: yields tokens until `signal` aborts, then throws the
 * signal's reason, like an LLM SDK given `{ signal }`. `calls` records
 * whether it saw the abort.
 */
function fakeModel(
  signal: AbortSignal,
  calls: { cancelled: boolean; tokens: number },
): AsyncIterable<string> {
  return {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (signal.aborted) {
          calls.cancelled = true;
          throw signal.reason;
        }
        calls.tokens += 1;
        yield `t${calls.tokens} `;
        // The next token comes when the "network" answers, or the abort cuts it short.
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, 2);
          signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
        });
      }
    },
  };
}

async function setUp(mode: AgentMode, options: Partial<AgentOptions> = {}): Promise<TestWorld> {
  // The service sends one webhook at a time: a stop or a newer message reaches a running
  // handler only when the receiver answers early (docs/agent.md, "Turns").
  const webhook: Partial<AgentOptions> =
    mode === 'webhook' ? { webhook: { respondEarly: true } as AgentWebhookOptions } : {};
  world = await createTestWorld({ agent: { mode, connect: false, options: { ...webhook, ...options } } });
  await world.user.connect();
  return world;
}

describe.each(['websocket', 'webhook'] as const)('turns (%s mode)', (mode) => {
  it('the human stops a streaming turn: the signal aborts, the model call is cancelled, the stream ends "stopped"', async () => {
    const w = await setUp(mode);
    const calls = { cancelled: false, tokens: 0 };
    const streaming = deferred();
    const ended = deferred<{ aborted: boolean; reason: unknown }>();
    w.agent.filter(isMessage, async (ctx: MessageContext) => {
      const writer = await ctx.replyStream({ coalesceMs: 0 });
      try {
        for await (const token of fakeModel(ctx.signal, calls)) {
          await writer.write(token);
          if (calls.tokens === 3) streaming.resolve();
        }
      } finally {
        ended.resolve({ aborted: ctx.signal.aborted, reason: ctx.signal.reason });
      }
    });
    const agentSide: TurnStoppedEvent[] = [];
    w.agent.on('turnStopped', (e) => agentSide.push(e));
    const userSide: TurnStoppedNotice[] = [];
    const errors: StreamFailure[] = [];
    w.user.on('turnStopped', (e) => userSide.push(e));
    w.user.on('streamError', (e) => errors.push(e));
    await w.agent.connect();

    await w.sendAsUser('write forever');
    await streaming.promise;
    const { stopId } = await w.user.stopTurn(w.conversationId);

    const end = await ended.promise;
    expect(end.aborted).toBe(true);
    expect((end.reason as DOMException).name).toBe('AbortError');
    expect(calls.cancelled).toBe(true);
    const failure = await until(() => errors[0], 'streamError');
    expect(failure).toMatchObject({ reason: 'aborted', detail: 'stopped', conversationId: w.conversationId });
    const notice = await until(() => userSide[0], 'turnStopped on the user side');
    expect(notice).toMatchObject({ stopId, turns: 1, agentId: w.agentId, conversationId: w.conversationId });
    expect(agentSide).toEqual([
      { conversationId: w.conversationId, stoppedBy: w.user.session?.userId, stopId, turns: 1 },
    ]);
    // The stop never reached a handler as a message, and no handler error was raised.
    expect(w.agent.stats().handlerErrors ?? 0).toBe(0);
  });

  it('a stop with nothing running is answered with turns: 0', async () => {
    const w = await setUp(mode);
    const userSide: TurnStoppedNotice[] = [];
    w.user.on('turnStopped', (e) => userSide.push(e));
    await w.agent.connect();
    const { stopId } = await w.user.stopTurn(w.conversationId);
    expect(await until(() => userSide[0], 'turnStopped')).toMatchObject({ stopId, turns: 0 });
  });

  it("docs/artifacts.md's first example, inside a message.new handler, gets the human's answer", async () => {
    const w = await setUp(mode);
    const outcome = deferred<string>();
    w.agent.on('message.new', async (msg) => {
      const conversationId = msg.conversationId;
      const artifact = await w.agent.artifacts.send(conversationId, {
        content: { kind: 'confirm', title: 'Delete 3 files?' },
        sensitivity: 'high',
      });
      const answer = await artifact.response({ timeoutMs: 60_000 });
      outcome.resolve(answer.status);
      await msg.reply(`outcome: ${answer.status}`);
    });
    const arrived: ReceivedArtifact[] = [];
    w.user.on('artifact', (a) => arrived.push(a));
    await w.agent.connect();
    await w.sendAsUser('clean up');
    const artifact = await until(() => arrived[0], 'artifact');
    await artifact.approve({});
    expect(await outcome.promise).toBe('approved');
    let reply = await w.waitForReply();
    if (reply.payload.type === 'artifact') reply = await w.waitForReply(); // the artifact itself
    expect(reply.payload).toMatchObject({ text: 'outcome: approved' });
  });

  it('latest: a new message aborts the running turn (superseded) and starts a new one', async () => {
    const w = await setUp(mode, { turns: { strategy: 'latest' } });
    const first = deferred();
    const seen: { texts: string[]; aborted: boolean; reason: string | undefined }[] = [];
    w.agent.filter(isMessage, async (ctx) => {
      const record = {
        texts: ctx.messages.map((m) => m.text ?? ''),
        aborted: false,
        reason: undefined as string | undefined,
      };
      seen.push(record);
      if (ctx.text === 'one') {
        first.resolve();
        await new Promise<void>((resolve) =>
          ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        record.aborted = true;
        record.reason = (ctx.signal.reason as Error).message;
        return;
      }
      await ctx.reply(`answered ${ctx.messages.length}`);
    });
    await w.agent.connect();
    await w.sendAsUser('one');
    await first.promise;
    await w.sendAsUser('two');
    expect((await w.waitForReply()).payload).toMatchObject({ text: 'answered 1' });
    expect(seen.map((s) => s.texts)).toEqual([['one'], ['two']]);
    expect(seen[0]).toMatchObject({ aborted: true, reason: expect.stringMatching(/superseded/) });
  });

  it('concurrent: a second message of the conversation runs while the first is still running', async () => {
    const w = await setUp(mode, { turns: { strategy: 'concurrent' } });
    const release = deferred();
    const running: string[] = [];
    w.agent.filter(isMessage, async (ctx) => {
      running.push(ctx.text ?? '');
      if (ctx.text === 'slow') await release.promise;
      else await ctx.reply(`fast while ${running.join(',')}`);
    });
    await w.agent.connect();
    await w.sendAsUser('slow');
    await until(() => (running.length === 1 ? true : undefined), 'the slow turn');
    await w.sendAsUser('fast');
    expect((await w.waitForReply()).payload).toMatchObject({ text: 'fast while slow,fast' });
    release.resolve();
  });

  it('debounce: messages within the window become one turn (ctx.messages), on an injected clock', async () => {
    const timers = new Map<number, () => void>();
    let set = 0;
    const windowMs = 777;
    let serverNow: () => number = () => Date.now();
    // The debounce window's timers are held here; every other timer runs on real time.
    const clock: Clock = {
      now: () => serverNow(),
      setTimeout(fn, ms, o): TimerHandle {
        if (ms !== windowMs) return systemClock.setTimeout(fn, ms, o);
        set += 1;
        const id = -set;
        timers.set(id, fn);
        return { id };
      },
      clearTimeout(handle) {
        if (!timers.delete(handle.id)) systemClock.clearTimeout(handle);
      },
    };
    const w = await setUp(mode, { clock, turns: { strategy: 'debounce', windowMs } });
    serverNow = () => w.server.clock.now();
    const turns: string[][] = [];
    w.agent.filter(isMessage, async (ctx) => {
      turns.push(ctx.messages.map((m) => m.text ?? ''));
      await ctx.reply(`one turn for ${ctx.messages.length}`);
    });
    await w.agent.connect();
    await w.sendAsUser('a');
    await w.sendAsUser('b');
    await w.sendAsUser('c');
    await until(() => (set === 3 ? true : undefined), 'the three messages in the window');
    expect(turns).toEqual([]); // the clock did not move: the window is still open
    expect(timers.size).toBe(1);
    [...timers.values()][0]!(); // the window closes
    expect((await w.waitForReply()).payload).toMatchObject({ text: 'one turn for 3' });
    expect(turns).toEqual([['a', 'b', 'c']]);
  });

  it('close() past its deadline aborts the running turn (reason shutdown)', async () => {
    const w = await setUp(mode);
    const started = deferred();
    const reason = deferred<string>();
    w.agent.filter(isMessage, async (ctx) => {
      started.resolve();
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      reason.resolve((ctx.signal.reason as Error).message);
    });
    await w.agent.connect();
    await w.sendAsUser('work');
    await started.promise;
    const closed = await w.agent.close({ timeoutMs: 50 });
    expect(closed.drained).toBe(false);
    expect(await reason.promise).toMatch(/shut down/);
  });
});
