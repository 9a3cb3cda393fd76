/**
 * The kit's typed replies and user-side helpers (issue #27) beyond the
 * cookbook (cookbook.test.ts covers text, stream, artifact and file
 * replies): reactions, a wait of the wrong kind, a wait that runs out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestWorld, TestWorldError, type TestWorld } from '../../../packages/dev/src/testing/index.js';

let world: TestWorld;
beforeAll(async () => {
  world = await createTestWorld();
  world.agent.on('message.new', async (m) => {
    await m.reply(`echo: ${m.text ?? ''}`);
  });
});
afterAll(() => world.close());

describe('waitForReply', () => {
  it('reactAsUser: the agent gets reaction.update', async () => {
    const id = await world.sendAsUser('react to me');
    await world.waitForReply({ kind: 'text' });
    await world.reactAsUser(id, '👍');
    const event = await world.waitForDelivery((e) => e.type === 'reaction.update');
    expect(event).toMatchObject({ emoji: '👍', action: 'add', targetMessageId: id });
  });

  it('fails with a TestWorldError naming both kinds when the next reply is of another kind', async () => {
    await world.sendAsUser('plain');
    const err = (await world.waitForReply({ kind: 'stream' }).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(TestWorldError);
    expect(err.message).toMatch(
      /^Waiting for a stream reply from agent "Test agent" .* the next one was a text reply/,
    );
  });

  it('fails a wait that runs out before the runner does, saying what it awaited', async () => {
    const err = (await world.waitForReply({ kind: 'file', timeoutMs: 50 }).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(TestWorldError);
    expect(err.message).toMatch(/^Timed out after 50 ms waiting for a file reply from agent "Test agent"/);
  });
});
