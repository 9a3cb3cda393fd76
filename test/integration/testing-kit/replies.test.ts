/**
 * The kit's typed replies and user-side helpers (issue #27), one world for
 * the file: text, a streamed reply (assembled), an artifact answered by
 * the user, files both ways, reactions, and a wait of the wrong kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestWorld, TestWorldError, type TestWorld } from '../../../packages/dev/src/testing/index.js';

let world: TestWorld;
beforeAll(async () => {
  world = await createTestWorld();
  world.agent.on('message.new', async (m) => {
    if (m.payload.type === 'file') {
      const file = await world.agent.files.download(m.payload);
      const text = new TextDecoder().decode(await file.toBytes());
      await m.reply(`got ${file.name}: ${text}`);
      return;
    }
    const text = m.text ?? '';
    if (text === 'stream') {
      const w = await m.replyStream();
      await w.write('Hello');
      await w.write(', ');
      await w.end('world');
    } else if (text === 'ask') {
      const a = await world.agent.artifacts.send(m.conversationId, {
        content: { kind: 'confirm', title: 'Deploy?' },
      });
      // Not awaited in the handler: the answer is an event of the same conversation, handled after it.
      void a.response({ timeoutMs: 5_000 }).then((outcome) => m.reply(`answer: ${outcome.status}`));
    } else if (text === 'file') {
      await world.agent.files.upload(m.conversationId, new TextEncoder().encode('report body'), {
        name: 'report.txt',
        contentType: 'text/plain',
      });
    } else {
      await m.reply(`echo: ${text}`);
    }
  });
});
afterAll(() => world.close());

describe('waitForReply', () => {
  it('returns a text reply with its text', async () => {
    await world.sendAsUser('hi');
    const reply = await world.waitForReply({ kind: 'text' });
    expect(reply.text).toBe('echo: hi');
    expect(reply.senderId).toBe(world.agentId);
  });

  it('returns a streamed reply with the text assembled from its deltas', async () => {
    await world.sendAsUser('stream');
    const reply = await world.waitForReply({ kind: 'stream' });
    expect(reply.status).toBe('ended');
    expect(reply.text).toBe('Hello, world');
  });

  it('returns an artifact the user answers with answerArtifact', async () => {
    await world.sendAsUser('ask');
    const artifact = await world.waitForReply({ kind: 'artifact' });
    expect(artifact.content).toMatchObject({ kind: 'confirm', title: 'Deploy?' });
    await world.answerArtifact(artifact, { approve: {} });
    expect((await world.waitForReply({ kind: 'text' })).text).toBe('answer: approved');
  });

  it('returns a file reply whose bytes are downloaded and checked', async () => {
    await world.sendAsUser('file');
    const file = await world.waitForReply({ kind: 'file' });
    expect(file.name).toBe('report.txt');
    expect(new TextDecoder().decode(await file.bytes())).toBe('report body');
  });

  it('sendFileAsUser: the agent receives the file', async () => {
    await world.sendFileAsUser('from the user', { name: 'note.txt', contentType: 'text/plain' });
    expect((await world.waitForReply({ kind: 'text' })).text).toBe('got note.txt: from the user');
  });

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
