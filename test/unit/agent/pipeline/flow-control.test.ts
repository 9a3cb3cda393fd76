/**
 * The water-mark logic of the Agent's WebSocket flow control (a fake target
 * standing in for the dispatcher) and the `flowControl` option checks.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveAgentOptions, type AgentOptions } from '../../../../packages/sdk/src/agent/options.js';
import {
  DEFAULT_FLOW_CONTROL,
  FlowControl,
  resolveFlowControl,
  type FlowControlOptions,
} from '../../../../packages/sdk/src/agent/pipeline/flow-control.js';
import { isConfigurationError } from '../../../../packages/sdk/src/core/errors/index.js';
import type { Logger } from '../../../../packages/sdk/src/core/logger.js';
import { MemoryKeyStore } from '../../../../packages/sdk/src/crypto/index.js';

const base: AgentOptions = {
  baseUrl: 'https://api.example.com/',
  agentId: 'agent-1',
  token: `hsk_${'a1B2'.repeat(10)}`,
  keyStore: new MemoryKeyStore(),
};

function recordingLogger(lines: string[]): Logger {
  const log = (level: string) => (message: string) => void lines.push(`${level}:${message}`);
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

function setup(options: FlowControlOptions, supported = true) {
  const wishes: boolean[] = [];
  const lines: string[] = [];
  const limits = resolveFlowControl(options);
  const flow = new FlowControl(
    limits,
    { setReadPaused: (p) => (wishes.push(p), supported) },
    recordingLogger(lines),
  );
  return { flow, wishes, lines };
}

function refusedOption(flowControl: unknown): string | undefined {
  try {
    resolveAgentOptions({ ...base, flowControl } as AgentOptions);
  } catch (err) {
    expect(isConfigurationError(err)).toBe(true);
    return (err as { option?: string }).option;
  }
  return undefined;
}

describe('flow control water marks', () => {
  it('pauses above the high mark and resumes at the low mark, once each', () => {
    const { flow, wishes, lines } = setup({ highWaterMark: 4, lowWaterMark: 2 });
    for (let i = 0; i < 4; i++) flow.enter(10);
    expect(wishes).toEqual([]);
    flow.enter(10);
    expect(wishes).toEqual([true]);
    flow.enter(10);
    expect(flow.stats()).toEqual({ paused: true, pauses: 1, inFlight: 6, inFlightBytes: 60 });
    for (let i = 0; i < 3; i++) flow.leave(10);
    expect(wishes).toEqual([true]);
    flow.leave(10);
    expect(wishes).toEqual([true, false]);
    expect(flow.stats()).toEqual({ paused: false, pauses: 1, inFlight: 2, inFlightBytes: 20 });
    expect(lines.filter((l) => l.startsWith('debug:flow control'))).toHaveLength(2);
  });

  it('a few large frames pause through the byte bound', () => {
    const { flow, wishes } = setup({ highWaterBytes: 3_000_000, lowWaterBytes: 1_000_000 });
    flow.enter(1_400_000);
    flow.enter(1_400_000);
    expect(wishes).toEqual([]);
    flow.enter(1_400_000);
    expect(wishes).toEqual([true]);
    flow.leave(1_400_000);
    flow.leave(1_400_000);
    expect(wishes).toEqual([true]);
    flow.leave(1_400_000);
    expect(wishes).toEqual([true, false]);
  });

  it('a socket that cannot pause: no pause counted, one info line', () => {
    const { flow, lines } = setup({ highWaterMark: 1, lowWaterMark: 0 }, false);
    for (let i = 0; i < 5; i++) flow.enter(1);
    expect(flow.stats()).toMatchObject({ paused: false, pauses: 0, inFlight: 5 });
    expect(lines.filter((l) => l.startsWith('info:'))).toHaveLength(1);
  });

  it('false turns it off', () => {
    const wishes: boolean[] = [];
    const flow = new FlowControl(
      false,
      { setReadPaused: (p) => (wishes.push(p), true) },
      recordingLogger([]),
    );
    for (let i = 0; i < 5000; i++) flow.enter(1_000_000);
    expect(wishes).toEqual([]);
    expect(flow.stats().inFlight).toBe(5000);
  });

  it('property: paused exactly when the marks say so, and wishes alternate', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.boolean(), { maxLength: 300 }),
        (high, steps) => {
          const low = Math.floor(high / 2);
          const { flow, wishes } = setup({ highWaterMark: high, lowWaterMark: low });
          let inFlight = 0;
          let paused = false;
          for (const enter of steps) {
            if (enter) {
              inFlight += 1;
              flow.enter(1);
              if (inFlight > high) paused = true;
            } else if (inFlight > 0) {
              inFlight -= 1;
              flow.leave(1);
              if (inFlight <= low) paused = false;
            }
            expect(flow.stats()).toMatchObject({ paused, inFlight });
          }
          wishes.forEach((w, i) => expect(w).toBe(i % 2 === 0));
        },
      ),
    );
  });
});

describe('flowControl option', () => {
  it('defaults: 1,024 / 512 events and 64 / 32 MiB', () => {
    expect(resolveAgentOptions(base).flowControl).toEqual(DEFAULT_FLOW_CONTROL);
    expect(resolveAgentOptions({ ...base, flowControl: false }).flowControl).toBe(false);
    expect(resolveAgentOptions({ ...base, flowControl: { highWaterMark: 8 } }).flowControl).toEqual({
      ...DEFAULT_FLOW_CONTROL,
      highWaterMark: 8,
      lowWaterMark: 4,
    });
  });

  it('names the bad field', () => {
    const cases: [unknown, string][] = [
      [true, 'flowControl'],
      ['x', 'flowControl'],
      [{ highWaterMark: 0 }, 'flowControl.highWaterMark'],
      [{ highWaterMark: 1.5 }, 'flowControl.highWaterMark'],
      [{ highWaterMark: Number.NaN }, 'flowControl.highWaterMark'],
      [{ lowWaterMark: -1 }, 'flowControl.lowWaterMark'],
      [{ highWaterMark: 8, lowWaterMark: 8 }, 'flowControl.lowWaterMark'],
      [{ highWaterBytes: 0 }, 'flowControl.highWaterBytes'],
      [{ highWaterBytes: 100, lowWaterBytes: 200 }, 'flowControl.lowWaterBytes'],
    ];
    for (const [value, option] of cases) expect(refusedOption(value)).toBe(option);
  });
});
