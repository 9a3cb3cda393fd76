import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestWorld, type TestWorld } from '@agent-messaging/dev/testing';
import type { UserClientEvents } from 'agent-messaging-sdk';
import { aiAgent } from './ai-sdk-agent.js';

type Ended = UserClientEvents['streamEnd'][0];
type Failed = UserClientEvents['streamError'][0];

describe('the AI SDK agent of examples/ai-sdk-agent.ts', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld();
    aiAgent(world.agent);
  });
  afterAll(() => world.close());

  it('streams a step, the reasoning and the tool call, asks before running the tool, then answers', async () => {
    const ended = new Promise<Ended>((resolve) => world.user.once('streamEnd', resolve));
    await world.sendAsUser('what is the weather in Oslo?');
    const ask = await world.waitForReply({ kind: 'artifact' });
    expect(ask.content).toMatchObject({ kind: 'confirm', title: 'Run weather?', body: '{"city":"Oslo"}' });
    await world.answerArtifact(ask, { approve: {} });
    const { text, parts } = await ended;
    expect(text).toBe('Let me check the weather in Oslo. It is -3 °C there.');
    expect(parts).toEqual([
      { type: 'step', id: 'step-1', title: 'Step 1', status: 'done' },
      { type: 'reasoning', text: 'The user wants the weather: use the tool. ' },
      { type: 'text', text: 'Let me check the weather in Oslo. ' },
      {
        type: 'tool',
        callId: 'call-1',
        name: 'weather',
        input: { city: 'Oslo' },
        state: 'output-available',
        output: { city: 'Oslo', tempC: -3 },
      },
      { type: 'step', id: 'step-2', title: 'Step 2', status: 'done' },
      { type: 'text', text: 'It is -3 °C there.' },
    ]);
  });

  it('stops the model when the human presses stop', async () => {
    const counting = new Promise<void>((resolve) =>
      world.user.on('streamDelta', (d) => d.text.includes(': 1 ') && resolve()),
    );
    const failed = new Promise<Failed>((resolve) => world.user.once('streamError', resolve));
    await world.sendAsUser('count to infinity');
    await counting; // the model is streaming
    await world.user.stopTurn(world.conversationId);
    expect(await failed).toMatchObject({ reason: 'aborted', detail: 'stopped' });
  });
});
