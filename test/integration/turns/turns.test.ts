/**
 * Turns end to end against the reference server, in WebSocket and webhook
 * mode (issue #26): the human stops a running turn (ctx.signal aborts, a
 * model call made with it is cancelled, the reply stream ends `stopped`, both
 * sides get typed events), an artifact awaited inside a handler (the first
 * example of docs/artifacts.md), and the strategies (latest, debounce,
 * concurrent), plus the shutdown deadline.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Clock, TimerHandle } from '../../../packages/sdk/src/core/clock.js';
import type { AgentMode, AgentOptions, AgentWebhookOptions } from '../../../packages/sdk/src/index.js';
import type { Context, MessageContext } from '../../../packages/sdk/src/agent/context.js';
import { isMessage } from '../../../packages/sdk/src/agent/context.js';
import type { TurnStoppedEvent } from '../../../packages/sdk/src/agent/turns/stop.js';
import type { StreamFailure, TurnStoppedNotice } from '../../../packages/sdk/src/client/index.js';
import type { ReceivedArtifact } from '../../../packages/sdk/src/client/user-artifacts.js';
import { systemClock } from '../../../packages/sdk/src/core/clock.js';
import { createTestWorld, type TestWorld } from '../../../packages/dev/src/testing/index.js';

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

/** The debounce window of these tests: its timers are held by the test clock below. */
const WINDOW_MS = 777;

/** Held debounce timers (fired by the test); every other timer runs on real time. */
const held = new Map<number, () => void>();
let windowTimers = 0;
let serverNow: () => number = () => Date.now();
const clock: Clock = {
  now: () => serverNow(),
  setTimeout(fn, ms, o): TimerHandle {
    if (ms !== WINDOW_MS) return systemClock.setTimeout(fn, ms, o);
    windowTimers += 1;
    const id = -windowTimers;
    held.set(id, fn);
    return { id };
  },
  clearTimeout(handle) {
    if (!held.delete(handle.id)) systemClock.clearTimeout(handle);
  },
};

describe.each(['websocket', 'webhook'] as const)('turns (%s mode)', (mode: AgentMode) => {
  let w: TestWorld;
  /** The handler of the test running now (one agent, one conversation per mode). */
  let handler: (ctx: MessageContext) => Promise<void> = async () => undefined;
  const agentStops: TurnStoppedEvent[] = [];
  const userStops: TurnStoppedNotice[] = [];
  const streamErrors: StreamFailure[] = [];
  /** What `agent.turnOf(msg)` gave an `agent.on('message.new')` handler. */
  const onSignals: (AbortSignal | undefined)[] = [];
  /** Every text the handlers saw. */
  const handled: string[] = [];

  beforeAll(async () => {
    // The service sends one webhook at a time: a stop or a newer message reaches a running
    // handler only when the receiver answers early (docs/agent.md, "Turns").
    const webhook: Partial<AgentOptions> =
      mode === 'webhook' ? { webhook: { respondEarly: true } as AgentWebhookOptions } : {};
    w = await createTestWorld({
      agent: { mode, connect: false, options: { ...webhook, clock, turns: { windowMs: WINDOW_MS } } },
    });
    serverNow = () => w.server.clock.now();
    w.agent.on('message.new', (msg) => {
      onSignals.push(w.agent.turnOf(msg)?.signal);
      handled.push(msg.text ?? `[${msg.payload.type}]`);
    });
    // The handler passes the event on, so the `agent.on('message.new')` listener above (the chain's
    // end, docs/agent.md gap decision 32) runs after it in the same turn.
    w.agent.filter(isMessage, async (ctx: Context, next) => {
      try {
        await handler(ctx as MessageContext);
      } finally {
        await next();
      }
    });
    w.agent.on('turnStopped', (e) => agentStops.push(e));
    w.user.on('turnStopped', (e) => userStops.push(e));
    w.user.on('streamError', (e) => streamErrors.push(e));
    await w.user.connect();
    await w.agent.connect();
  });
  afterAll(async () => {
    await w?.close();
  });
  /** The text of the agent's next text message (its stop answers and artifacts are skipped). */
  async function nextText(): Promise<string | undefined> {
    for (;;) {
      const reply = await w.waitForReply();
      if (reply.kind === 'text') return reply.text;
    }
  }
  beforeEach(async () => {
    // The agent's 5-messages-per-second limiter reads the server's virtual time: move it on.
    await w.advanceTime(1_000);
    agentStops.length = 0;
    userStops.length = 0;
    streamErrors.length = 0;
    w.agent.setTurnStrategy(w.conversationId, undefined);
  });

  it('the human stops a streaming turn: the signal aborts, the model call is cancelled, the stream ends "stopped"', async () => {
    const calls = { cancelled: false, tokens: 0 };
    const streaming = deferred();
    const ended = deferred<{ aborted: boolean; reason: unknown }>();
    handler = async (ctx) => {
      const writer = await ctx.replyStream({ coalesceMs: 0 });
      try {
        for await (const token of fakeModel(ctx.signal, calls)) {
          await writer.write(token);
          if (calls.tokens === 3) streaming.resolve();
        }
      } finally {
        ended.resolve({ aborted: ctx.signal.aborted, reason: ctx.signal.reason });
      }
    };
    const errorsBefore = w.agent.stats().handlerErrors;
    await w.sendAsUser('write forever');
    await streaming.promise;
    const { stopId } = await w.user.stopTurn(w.conversationId);

    const end = await ended.promise;
    expect(end.aborted).toBe(true);
    expect((end.reason as DOMException).name).toBe('AbortError');
    expect(calls.cancelled).toBe(true);
    const failure = await until(() => streamErrors[0], 'streamError');
    expect(failure).toMatchObject({ reason: 'aborted', detail: 'stopped', conversationId: w.conversationId });
    const notice = await until(() => userStops[0], 'turnStopped on the user side');
    expect(notice).toMatchObject({ stopId, turns: 1, agentId: w.agentId, conversationId: w.conversationId });
    expect(agentStops).toEqual([
      { conversationId: w.conversationId, stoppedBy: w.user.session?.userId, stopId, turns: 1 },
    ]);
    // The model's AbortError after the stop is not a handler failure.
    expect(w.agent.stats().handlerErrors).toBe(errorsBefore);
  });

  it("agent.on('message.new') listeners read the turn's signal through agent.turnOf(msg)", async () => {
    const started = deferred();
    handler = async (ctx) => {
      started.resolve();
      // Returns normally once stopped, so the chain passes the event on to the listener.
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    };
    const signalsBefore = onSignals.length;
    await w.sendAsUser('wait for the stop');
    await started.promise;
    await w.user.stopTurn(w.conversationId);
    const onSignal = await until(
      () => (onSignals.length > signalsBefore ? onSignals.at(-1) : undefined),
      "the agent.on('message.new') listener",
    );
    expect(onSignal.aborted).toBe(true);
    expect(await until(() => userStops[0], 'turnStopped')).toMatchObject({ turns: 1 });
  });

  it('a stop with nothing running is answered with turns: 0', async () => {
    const before = handled.length;
    const { stopId } = await w.user.stopTurn(w.conversationId);
    expect(await until(() => userStops[0], 'turnStopped')).toMatchObject({ stopId, turns: 0 });
    expect(handled.length).toBe(before); // the stop never reaches a handler
  });

  it("docs/artifacts.md's first example, inside a message.new handler, gets the human's answer", async () => {
    const outcome = deferred<string>();
    const arrived: ReceivedArtifact[] = [];
    const onArtifact = (a: ReceivedArtifact): number => arrived.push(a);
    w.user.on('artifact', onArtifact);
    handler = async (ctx) => {
      const conversationId = ctx.event.conversationId;
      const artifact = await w.agent.artifacts.send(conversationId, {
        content: { kind: 'confirm', title: 'Delete 3 files?' },
        sensitivity: 'high', // unanswered for 30 s → denied 'user_timeout'
      });
      const answer = await artifact.response({ timeoutMs: 60_000 });
      outcome.resolve(answer.status);
      await ctx.reply(`outcome: ${answer.status}`);
    };
    try {
      await w.sendAsUser('clean up');
      const artifact = await until(() => arrived[0], 'artifact');
      await artifact.approve({});
      expect(await outcome.promise).toBe('approved');
      expect(await nextText()).toBe('outcome: approved');
    } finally {
      w.user.off('artifact', onArtifact);
    }
  });

  it('latest: a new message aborts the running turn (superseded) and starts a new one', async () => {
    w.agent.setTurnStrategy(w.conversationId, 'latest');
    const first = deferred();
    const seen: { texts: string[]; aborted: boolean; reason: string | undefined }[] = [];
    handler = async (ctx) => {
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
    };
    await w.sendAsUser('one');
    await first.promise;
    await w.sendAsUser('two');
    expect(await nextText()).toBe('answered 1');
    expect(seen.map((s) => s.texts)).toEqual([['one'], ['two']]);
    expect(seen[0]).toMatchObject({ aborted: true, reason: expect.stringMatching(/superseded/) });
  });

  it('concurrent: a second message of the conversation runs while the first is still running', async () => {
    w.agent.setTurnStrategy(w.conversationId, 'concurrent');
    const release = deferred();
    const running: string[] = [];
    handler = async (ctx) => {
      running.push(ctx.text ?? '');
      if (ctx.text === 'slow') await release.promise;
      else await ctx.reply(`fast while ${running.join(',')}`);
    };
    await w.sendAsUser('slow');
    await until(() => (running.length === 1 ? true : undefined), 'the slow turn');
    await w.sendAsUser('fast');
    try {
      expect(await nextText()).toBe('fast while slow,fast');
    } finally {
      release.resolve();
    }
  });

  it('debounce: messages within the window become one turn (ctx.messages), on an injected clock', async () => {
    w.agent.setTurnStrategy(w.conversationId, 'debounce');
    const turns: string[][] = [];
    handler = async (ctx) => {
      turns.push(ctx.messages.map((m) => m.text ?? ''));
      await ctx.reply(`one turn for ${ctx.messages.length}`);
    };
    const before = windowTimers;
    await w.sendAsUser('a');
    await w.sendAsUser('b');
    await w.sendAsUser('c');
    await until(() => (windowTimers - before === 3 ? true : undefined), 'the three messages in the window');
    expect(turns).toEqual([]); // the clock did not move: the window is still open
    expect(held.size).toBe(1);
    [...held.values()][0]!(); // the window closes
    held.clear();
    expect(await nextText()).toBe('one turn for 3');
    expect(turns).toEqual([['a', 'b', 'c']]);
  });

  // Last: it closes the agent.
  it('close() past its deadline aborts the running turn (reason shutdown)', async () => {
    const started = deferred();
    const reason = deferred<string>();
    handler = async (ctx) => {
      started.resolve();
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      reason.resolve((ctx.signal.reason as Error).message);
    };
    await w.sendAsUser('work');
    await started.promise;
    const closed = await w.agent.close({ timeoutMs: 50 });
    expect(closed.drained).toBe(false);
    expect(await reason.promise).toMatch(/shut down/);
  });
});
