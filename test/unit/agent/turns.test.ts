/**
 * The turn registry and the strategies' gate (issue #26), on a ManualClock:
 * aborts and their reasons, tracked streams, lifecycle hooks, the debounce
 * window (timer, `maxMessages`, `flush()` on a frozen clock), `latest`
 * folding, `concurrent` lane keys, and the option checks.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { ConfigurationError } from '../../../packages/sdk/src/core/errors/configuration-error.js';
import type { AnyAgentEvent } from '../../../packages/sdk/src/agent/events.js';
import { createTurnRegistry, type TurnInfo } from '../../../packages/sdk/src/agent/turns/registry.js';
import { resolveTurnOptions, TurnGate } from '../../../packages/sdk/src/agent/turns/strategy.js';

const message = (text: string, senderId = 'u1'): { event: AnyAgentEvent } => ({
  event: { type: 'message.new', conversationId: 'c1', senderId, text } as unknown as AnyAgentEvent,
});

describe('turn registry', () => {
  it('aborts the running turns of a conversation with a reason, aborts tracked streams, runs hooks', async () => {
    const registry = createTurnRegistry();
    const seen: string[] = [];
    registry.hook({
      onStart: (t: TurnInfo) => seen.push(`start ${t.conversationId}`),
      onEnd: (t: TurnInfo) => seen.push(`end ${t.abortReason ?? 'normal'}`),
    });
    const turn = registry.begin('c1', []);
    const aborts: (string | undefined)[] = [];
    expect(registry.track('c1', { abort: async (r) => void aborts.push(r) })).toBe(true);
    expect(registry.track('c2', { abort: async () => undefined })).toBe(false);
    expect(registry.abort('c2', 'stopped')).toBe(0);
    expect(registry.abort('c1', 'stopped')).toBe(1);
    expect(registry.abort('c1', 'stopped')).toBe(0); // already aborted
    expect(turn.signal.aborted).toBe(true);
    expect((turn.signal.reason as DOMException).name).toBe('AbortError');
    expect(aborts).toEqual(['stopped']);
    turn.end();
    turn.end();
    expect(seen).toEqual(['start c1', 'end stopped']);
    expect(registry.size).toBe(0);
  });

  it('a filter limits which turns a stop aborts; shutdown also aborts the outside-turn signal', () => {
    const registry = createTurnRegistry();
    const a = registry.begin('c1', [message('a', 'u1').event as never]);
    const b = registry.begin('c1', [message('b', 'u2').event as never]);
    expect(registry.abort('c1', 'stopped', (t) => t.messages.some((m) => m.senderId === 'u2'))).toBe(1);
    expect([a.signal.aborted, b.signal.aborted]).toEqual([false, true]);
    expect(registry.abortAll('shutdown')).toBe(1);
    expect(a.abortReason).toBe('shutdown');
    expect(registry.shutdown.aborted).toBe(true);
  });
});

describe('turn gate', () => {
  it('debounce: one turn for the messages of a window; maxMessages closes it at once', async () => {
    const clock = new ManualClock(0);
    const gate = new TurnGate(
      createTurnRegistry(),
      clock,
      resolveTurnOptions({ strategy: 'debounce', windowMs: 100, maxMessages: 3 }),
    );
    const turns: string[][] = [];
    const turn = async (items: readonly { event: AnyAgentEvent }[]): Promise<void> =>
      void turns.push(items.map((i) => (i.event as unknown as { text: string }).text));
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((t) => message(t));
    gate.arrived(a!);
    gate.arrived(b!);
    const runs = [gate.run(a!, turn), gate.run(b!, turn)];
    clock.advance(99);
    await Promise.resolve();
    expect(turns).toEqual([]);
    clock.advance(1);
    await Promise.all(runs);
    expect(turns).toEqual([['a', 'b']]);
    // maxMessages: three messages close the window with the clock frozen.
    gate.arrived(c!);
    gate.arrived(d!);
    const e = message('e');
    gate.arrived(e);
    await Promise.all([gate.run(c!, turn), gate.run(d!, turn), gate.run(e, turn)]);
    expect(turns).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]);
  });

  it('debounce: flush() (close) closes an open window on a frozen clock', async () => {
    const gate = new TurnGate(
      createTurnRegistry(),
      new ManualClock(0),
      resolveTurnOptions({ strategy: 'debounce' }),
    );
    const item = message('x');
    gate.arrived(item);
    let ran = 0;
    const run = gate.run(item, async () => void (ran += 1));
    gate.flush();
    await run;
    expect(ran).toBe(1);
  });

  it('latest: a newer message aborts the running turn and takes the waiting ones into its turn', async () => {
    const registry = createTurnRegistry();
    const gate = new TurnGate(registry, new ManualClock(0), resolveTurnOptions({ strategy: 'latest' }));
    const [a, b, c] = ['a', 'b', 'c'].map((t) => message(t));
    const turns: string[][] = [];
    const turn = async (items: readonly { event: AnyAgentEvent }[]): Promise<void> => {
      const t = registry.begin('c1', items.map((i) => i.event) as never);
      turns.push(items.map((i) => (i.event as unknown as { text: string }).text));
      t.end();
    };
    gate.arrived(a!);
    const running = registry.begin('c1', []);
    gate.arrived(b!);
    expect(running.abortReason).toBe('superseded');
    gate.arrived(c!);
    await gate.run(a!, turn); // a newer one arrived: folded
    await gate.run(b!, turn); // folded into c's turn
    await gate.run(c!, turn);
    expect(turns).toEqual([['a', 'b', 'c']]);
  });

  it('concurrent gives each message a lane of its own; other events keep the conversation lane', () => {
    const gate = new TurnGate(createTurnRegistry(), new ManualClock(0), resolveTurnOptions(undefined));
    expect(gate.laneKey('c1', 'message.new')).toBe('c1');
    gate.setStrategy('c1', 'concurrent');
    const k1 = gate.laneKey('c1', 'message.new');
    expect(k1).not.toBe('c1');
    expect(gate.laneKey('c1', 'message.new')).not.toBe(k1);
    expect(gate.laneKey('c1', 'relation.revoked')).toBe('c1');
    gate.setStrategy('c1', undefined);
    expect(gate.strategyOf('c1')).toBe('serial');
  });

  it('refuses a bad strategy or window with a ConfigurationError', () => {
    expect(() => resolveTurnOptions({ strategy: 'burst' as never })).toThrow(ConfigurationError);
    expect(() => resolveTurnOptions({ windowMs: 0 })).toThrow(ConfigurationError);
    expect(() => resolveTurnOptions({ maxMessages: 1.5 })).toThrow(ConfigurationError);
    expect(resolveTurnOptions(undefined)).toEqual({ strategy: 'serial', windowMs: 1500, maxMessages: 20 });
  });
});
