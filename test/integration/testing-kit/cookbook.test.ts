// #region imports
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestWorld, DROP, type TestWorld } from '@agent-messaging/dev/testing';
// #endregion imports

// #region text
describe('recipe: a text reply', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld();
    world.agent.on('message.new', async (m) => {
      await m.reply(`echo: ${m.text ?? ''}`);
    });
  });
  afterAll(() => world.close());

  it('answers', async () => {
    await world.sendAsUser('hello');
    const reply = await world.waitForReply({ kind: 'text' });
    expect(reply.text).toBe('echo: hello');
  });
});
// #endregion text

// #region stream
describe('recipe: a streamed reply', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld();
    world.agent.on('message.new', async (m) => {
      const writer = await m.replyStream();
      for (const token of ['Once ', 'upon ', 'a time']) await writer.write(token);
      await writer.end();
    });
  });
  afterAll(() => world.close());

  it('streams the answer; the kit assembles the verified text', async () => {
    await world.sendAsUser('tell me a story');
    const reply = await world.waitForReply({ kind: 'stream' });
    expect(reply.status).toBe('ended');
    expect(reply.text).toBe('Once upon a time');
  });
});
// #endregion stream

// #region artifact
describe('recipe: an artifact the user answers', () => {
  let world: TestWorld;
  const outcomes: string[] = [];
  beforeAll(async () => {
    world = await createTestWorld();
    world.agent.on('message.new', async (m) => {
      const artifact = await world.agent.artifacts.send(m.conversationId, {
        content: { kind: 'confirm', title: 'Delete 3 files?' },
      });
      // Not awaited here: the answer is the next event of this conversation.
      void artifact.response().then((outcome) => outcomes.push(outcome.status));
    });
  });
  afterAll(() => world.close());

  it('asks, the user approves, the agent gets the answer', async () => {
    await world.sendAsUser('clean up');
    const ask = await world.waitForReply({ kind: 'artifact' });
    expect(ask.content).toMatchObject({ kind: 'confirm', title: 'Delete 3 files?' });
    await world.answerArtifact(ask, { approve: {} });
    await world.waitForDelivery((e) => e.type === 'artifact_response');
    expect(outcomes).toEqual(['approved']);
  });
});
// #endregion artifact

// #region file
describe('recipe: files both ways', () => {
  let world: TestWorld;
  beforeAll(async () => {
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
  afterAll(() => world.close());

  it('the user sends a file, the agent answers with one', async () => {
    await world.sendFileAsUser('quiet please', { name: 'note.txt', contentType: 'text/plain' });
    const reply = await world.waitForReply({ kind: 'file' });
    expect(reply.name).toBe('shout.txt');
    expect(new TextDecoder().decode(await reply.bytes())).toBe('QUIET PLEASE');
  });
});
// #endregion file

// #region group
describe('recipe: a group of two people and a bot', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld({
      users: ['Ada', 'Bob'],
      agents: [{ name: 'Scribe' }],
      groups: [{ name: 'Book club', members: ['Ada', 'Bob', 'Scribe'] }],
    });
    world.agent.on('message.new', async (m) => {
      await m.reply(`noted: ${m.text ?? ''}`);
    });
  });
  afterAll(() => world.close());

  it('Bob writes in the group; the bot answers both members', async () => {
    const [ada, bob] = world.users;
    const { conversationId } = world.groups[0]!;
    await world.sendAsUser('chapter 3 by Friday', { user: bob!, conversationId });
    for (const to of [ada!, bob!]) {
      const reply = await world.waitForReply({ kind: 'text', to, conversationId });
      expect(reply.text).toBe('noted: chapter 3 by Friday');
    }
  });
});
// #endregion group

// #region webhook
describe('recipe: an agent in webhook mode', () => {
  let world: TestWorld;
  beforeAll(async () => {
    // The world starts the HTTP receiver, registers it and wires agent.webhookHandler().
    world = await createTestWorld({ agent: { mode: 'webhook' } });
    world.agent.on('message.new', async (m) => {
      await m.reply('got it');
    });
  });
  afterAll(() => world.close());

  it('receives by webhook; the delivery logs say delivered', async () => {
    await world.sendAsUser('hi');
    expect((await world.waitForDelivery()).transport).toBe('webhook');
    expect((await world.waitForReply({ kind: 'text' })).text).toBe('got it');
    await world.expectDeliveries({ eventType: 'message.new', finalStatus: 'delivered', count: 1 });
  });
});
// #endregion webhook

// #region relay
describe('recipe: a relay between your bot and the service', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld({ relay: true });
    world.agent.on('message.new', async (m) => {
      await m.reply(`echo: ${m.text ?? ''}`);
    });
  });
  afterAll(() => world.close());

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
    expect((await world.waitForReply({ kind: 'text' })).text).toBe('echo: are you there?');
  });
});
// #endregion relay

// #region time
describe('recipe: time', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld();
  });
  afterAll(() => world.close());

  it('sends in a burst on a clock nobody advances; rate windows do not stall', async () => {
    for (let i = 0; i < 20; i++) await world.agent.send(world.conversationId, `tick ${i}`);
    for (let i = 0; i < 20; i++) expect((await world.waitForReply({ kind: 'text' })).text).toBe(`tick ${i}`);
  });

  it('jumps a day ahead; tokens refresh, envelopes stay fresh', async () => {
    await world.advanceTime(24 * 60 * 60 * 1000);
    await world.sendAsUser('a day later');
    expect((await world.waitForDelivery()).type).toBe('message.new');
  });
});
// #endregion time
