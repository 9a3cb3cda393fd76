import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestWorld, type TestWorld } from '@agent-messaging/dev/testing';
import { llmAgent, turns } from '../../../examples/llm-agent.js';

describe('the LLM agent of examples/llm-agent.ts', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld({ agent: { options: { turns } } });
    llmAgent(world.agent);
  });
  afterAll(() => world.close());

  it('asks before running the tool, then streams the answer', async () => {
    await world.sendAsUser('what is the weather in Oslo?');
    const ask = await world.waitForReply({ kind: 'artifact' });
    expect(ask.content).toMatchObject({ kind: 'confirm', title: 'Run weather?' });
    await world.answerArtifact(ask, { approve: {} });
    const reply = await world.waitForReply({ kind: 'stream' });
    expect(reply.text).toBe('Let me check the weather in Oslo. It is -3 °C in Oslo.');
  });

  it('says so when the human denies the tool', async () => {
    await world.sendAsUser('and the weather in Bergen?');
    const ask = await world.waitForReply({ kind: 'artifact' });
    await world.answerArtifact(ask, { deny: 'user_rejected' });
    const reply = await world.waitForReply({ kind: 'stream' });
    expect(reply.text).toBe(
      'Let me check the weather in Bergen. I could not check the weather: denied by the user.',
    );
  });

  it('stops when the human presses stop', async () => {
    const counting = new Promise<void>((resolve) =>
      world.user.on('streamDelta', (d) => d.text.includes(': 1 ') && resolve()),
    );
    await world.sendAsUser('count to infinity');
    await counting; // the model is streaming
    await world.user.stopTurn(world.conversationId);
    const reply = await world.waitForReply({ kind: 'stream' });
    expect(reply.status).toBe('failed');
    expect(reply.failure).toMatchObject({ reason: 'aborted', detail: 'stopped' });
  });
});
