/**
 * Typed stream parts (#26) end to end through the reference server, in
 * WebSocket and webhook mode: the agent writes text, reasoning, plan steps
 * updated in place, a tool call and its result, a source; the UserClient
 * shows them in order (`streamPart`, the assembled `parts` of `streamEnd`).
 * A text-only reader (an old receiver) of the same stream sees the text with
 * one record line per part; a stream without `parts` in its start reads as
 * plain text, as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamPartUpdate } from '../../../packages/sdk/src/client/index.js';
import { STREAM_PART_MARK } from '../../../packages/sdk/src/core/protocol/stream-parts.js';
import type { TestWorld } from '../../../packages/dev/src/testing/index.js';
import { streamWorld, until, type StreamLog } from './stream-helpers.js';

describe.each([
  ['WebSocket', {}],
  ['webhook', { agent: { mode: 'webhook' as const } }],
])('typed stream parts (%s mode)', (_mode, options) => {
  let world: TestWorld;
  let log: StreamLog;
  const updates: StreamPartUpdate[] = [];
  beforeAll(async () => {
    ({ world, log } = await streamWorld(options));
    world.user.on('streamPart', (u) => updates.push(u));
  });
  afterAll(() => world.close());

  it('delivers text, reasoning, steps (updated in place), a tool call with its result and a source, in order', async () => {
    const w = await world.agent.stream(world.conversationId);
    await w.step({ id: 'plan', title: 'Look up the weather', status: 'running' });
    await w.reasoning('The user wants ');
    await w.reasoning('the forecast.');
    await w.toolCall({ callId: 'c1', name: 'weather', input: { city: 'Oslo' } });
    await w.write('Checking');
    await w.toolResult({ callId: 'c1', output: { tempC: -3 } });
    await w.source({ id: 's1', url: 'https://met.example/oslo', title: 'Forecast' });
    await w.step({ id: 'plan', status: 'done' });
    const summary = await w.end(' it is -3 °C.');
    expect(summary.text).toBe('Checking it is -3 °C.');

    const end = await until(() => log.ends.find((e) => e.streamId === w.streamId), 'streamEnd');
    expect(end.text).toBe('Checking it is -3 °C.');
    expect(end.parts).toEqual([
      { type: 'step', id: 'plan', title: 'Look up the weather', status: 'done', detail: undefined },
      { type: 'reasoning', text: 'The user wants the forecast.' },
      {
        type: 'tool',
        callId: 'c1',
        name: 'weather',
        input: { city: 'Oslo' },
        state: 'output-available',
        output: { tempC: -3 },
        error: undefined,
      },
      { type: 'text', text: 'Checking' },
      {
        type: 'source',
        id: 's1',
        url: 'https://met.example/oslo',
        title: 'Forecast',
        mediaType: undefined,
        filename: undefined,
      },
      { type: 'text', text: ' it is -3 °C.' },
    ]);
    const mine = updates.filter((u) => u.streamId === w.streamId);
    const steps = mine.filter((u) => u.part.type === 'step').map((u) => [u.index, u.part]);
    expect(steps.map(([index]) => index)).toEqual([0, 0]);
    expect(steps.map(([, p]) => (p as { status: string }).status)).toEqual(['running', 'done']);
    const tool = mine.filter((u) => u.part.type === 'tool').map((u) => (u.part as { state: string }).state);
    expect(tool).toEqual(['input-available', 'output-available']);
    // streamDelta carries the text only, never a record.
    const deltas = log.deltas.filter((d) => d.streamId === w.streamId);
    expect(deltas.map((d) => d.delta).join('')).toBe(end.text);
    expect(deltas.some((d) => d.delta.includes(STREAM_PART_MARK))).toBe(false);
  });

  it('a failed tool and an escaped record separator in text', async () => {
    const w = await world.agent.stream(world.conversationId, { coalesceMs: 0 });
    await w.toolCall({ callId: 'x', name: 'search' });
    await w.toolResult({ callId: 'x', error: 'quota exceeded' });
    await w.write(`a${STREAM_PART_MARK}b\n`);
    await w.end();
    const end = await until(() => log.ends.find((e) => e.streamId === w.streamId), 'streamEnd');
    expect(end.text).toBe(`a${STREAM_PART_MARK}b\n`);
    expect(end.parts[0]).toMatchObject({ type: 'tool', state: 'output-error', error: 'quota exceeded' });
    expect(end.parts[1]).toEqual({ type: 'text', text: `a${STREAM_PART_MARK}b\n` });
  });

  it('refuses a bad part at the writer with a ValidationError, and the stream goes on', async () => {
    const w = await world.agent.stream(world.conversationId);
    await expect(w.step({ id: '', status: 'running' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(w.step({ id: 'a', status: 'paused' as 'done' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(w.toolResult({ callId: 'c', output: 1, error: 'e' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(w.source({ id: 's' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await w.write('still here');
    await w.end();
    const end = await until(() => log.ends.find((e) => e.streamId === w.streamId), 'streamEnd');
    expect(end.parts).toEqual([{ type: 'text', text: 'still here' }]);
  });
});
