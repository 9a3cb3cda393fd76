import assert from 'node:assert/strict';
import { createTestWorld, DROP, type TestWorld } from '@agent-messaging/dev/testing';

import { afterAll as after, beforeAll as before, describe, it } from 'vitest';

describe('recipe: a text reply', () => {
  let world: TestWorld;
  before(async () => {
    world = await createTestWorld();
    world.agent.on('message.new', async (m) => {
      await m.reply(`echo: ${m.text ?? ''}`);
    });
  });
  after(() => world.close());

  it('answers', async () => {
    await world.sendAsUser('hello');
    const reply = await world.waitForReply({ kind: 'text' });
    assert.equal(reply.text, 'echo: hello');
  });
});

describe('recipe: a streamed reply', () => {
  let world: TestWorld;
  before(async () => {
    world = await createTestWorld();
    world.agent.on('message.new', async (m) => {
      const writer = await m.replyStream();
      for (const token of ['Once ', 'upon ', 'a time']) await writer.write(token);
      await writer.end();
    });
  });
  after(() => world.close());

  it('streams the answer; the kit assembles the verified text', async () => {
    await world.sendAsUser('tell me a story');
    const reply = await world.waitForReply({ kind: 'stream' });
    assert.equal(reply.status, 'ended');
    assert.equal(reply.text, 'Once upon a time');
  });
});

describe('recipe: an artifact the user answers', () => {
  let world: TestWorld;
  const outcomes: string[] = [];
  before(async () => {
    world = await createTestWorld();
    world.agent.on('message.new', async (m) => {
      const artifact = await world.agent.artifacts.send(m.conversationId, {
        content: { kind: 'confirm', title: 'Delete 3 files?' },
      });
      // Not awaited here: the answer is the next event of this conversation.
      void artifact.response().then((outcome) => outcomes.push(outcome.status));
    });
  });
  after(() => world.close());

  it('asks, the user approves, the agent gets the answer', async () => {
    await world.sendAsUser('clean up');
    const ask = await world.waitForReply({ kind: 'artifact' });
    assert.deepEqual(ask.content, { kind: 'confirm', title: 'Delete 3 files?' });
    await world.answerArtifact(ask, { approve: {} });
    await world.waitForDelivery((e) => e.type === 'artifact_response');
    assert.deepEqual(outcomes, ['approved']);
  });
});

describe('recipe: files both ways', () => {
  let world: TestWorld;
  before(async () => {
    world = await createTestWorld();
    world.agent.on('message.new', async (m) => {
      if (m.payload.type !== 'file') return;
      const file = await world.agent.files.download(m.payload);
      const text = new TextDecoder().decode(await file.toBytes());
      await world.agent.files.upload(m.conversationId, new TextEncoder().encode(text.toUpperCase()), {
        name: 'shout.txt',
        contentType: 'text/plain',
      });
    });
  });
  after(() => world.close());

  it('the user sends a file, the agent answers with one', async () => {
    await world.sendFileAsUser('quiet please', { name: 'note.txt', contentType: 'text/plain' });
    const reply = await world.waitForReply({ kind: 'file' });
    assert.equal(reply.name, 'shout.txt');
    assert.equal(new TextDecoder().decode(await reply.bytes()), 'QUIET PLEASE');
  });
});

describe('recipe: a group of two people and a bot', () => {
  let world: TestWorld;
  before(async () => {
    world = await createTestWorld({
      users: ['Ada', 'Bob'],
      agents: [{ name: 'Scribe' }],
      groups: [{ name: 'Book club', members: ['Ada', 'Bob', 'Scribe'] }],
    });
    world.agent.on('message.new', async (m) => {
      await m.reply(`noted: ${m.text ?? ''}`);
    });
  });
  after(() => world.close());

  it('Bob writes in the group; the bot answers both members', async () => {
    const [ada, bob] = world.users;
    const { conversationId } = world.groups[0]!;
    await world.sendAsUser('chapter 3 by Friday', { user: bob!, conversationId });
    for (const to of [ada!, bob!]) {
      const reply = await world.waitForReply({ kind: 'text', to, conversationId });
      assert.equal(reply.text, 'noted: chapter 3 by Friday');
    }
  });
});

describe('recipe: an agent in webhook mode', () => {
  let world: TestWorld;
  before(async () => {
    // The world starts the HTTP receiver, registers it and wires agent.webhookHandler().
    world = await createTestWorld({ agent: { mode: 'webhook' } });
    world.agent.on('message.new', async (m) => {
      await m.reply('got it');
    });
  });
  after(() => world.close());

  it('receives by webhook; the delivery logs say delivered', async () => {
    await world.sendAsUser('hi');
    assert.equal((await world.waitForDelivery()).transport, 'webhook');
    assert.equal((await world.waitForReply({ kind: 'text' })).text, 'got it');
    await world.expectDeliveries({ eventType: 'message.new', finalStatus: 'delivered', count: 1 });
  });
});

describe('recipe: a relay between your bot and the service', () => {
  let world: TestWorld;
  before(async () => {
    world = await createTestWorld({ relay: true });
    world.agent.on('message.new', async (m) => {
      await m.reply(`echo: ${m.text ?? ''}`);
    });
  });
  after(() => world.close());

  it('the service never sees the plaintext', async () => {
    await world.sendAsUser('my PIN is 4921-7714');
    await world.waitForReply({ kind: 'text' });
    world.relay!.assertNoPlaintext('4921-7714');
  });

  it('a lost delivery comes again after the connection is reset', async () => {
    const relay = world.relay!;
    let lost = (): void => undefined;
    const dropped = new Promise<void>((resolve) => (lost = resolve));
    relay.onServerFrame = (frame) => {
      if ((frame as { type?: string }).type !== 'message.new') return frame;
      lost();
      return DROP;
    };
    await world.sendAsUser('are you there?');
    await dropped;
    relay.onServerFrame = undefined;
    relay.reset(); // the agent reconnects; the unacknowledged delivery is sent again
    assert.equal((await world.waitForReply({ kind: 'text' })).text, 'echo: are you there?');
  });
});

describe('recipe: time', () => {
  let world: TestWorld;
  before(async () => {
    world = await createTestWorld();
  });
  after(() => world.close());

  it('sends in a burst on a clock nobody advances; rate windows do not stall', async () => {
    for (let i = 0; i < 20; i++) await world.agent.send(world.conversationId, `tick ${i}`);
    for (let i = 0; i < 20; i++) assert.equal((await world.waitForReply({ kind: 'text' })).text, `tick ${i}`);
  });

  it('jumps a day ahead; tokens refresh, envelopes stay fresh', async () => {
    await world.advanceTime(24 * 60 * 60 * 1000);
    await world.sendAsUser('a day later');
    assert.equal((await world.waitForDelivery()).type, 'message.new');
  });
});
