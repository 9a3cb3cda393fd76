/**
 * A Chat SDK bot (`chat` 4.x, in-memory state) on the reference server through
 * `agent-messaging-sdk/chat`, answering UserClients end to end encrypted: a DM
 * and a group, a stream with plan steps, a card answered through an artifact,
 * reactions both ways, a file both ways, edits both ways, a human's stop; and
 * the relay never sees the plaintext. One world for the file (docs/chat-sdk.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Actions,
  Button,
  Card,
  CardText,
  Chat,
  emoji,
  type ActionEvent,
  type Message,
  type ReactionEvent,
  type StreamChunk,
} from 'chat';
import { createMemoryState } from '@chat-adapter/state-memory';
import {
  createAmsAdapter,
  decodeAmsThreadId,
  encodeAmsThreadId,
  type AmsAdapter,
} from 'agent-messaging-sdk/chat';
import { createTestWorld, type TestWorld } from '@agent-messaging/dev/testing';
import { isValidationError, type UserClientEvents } from 'agent-messaging-sdk';
import { MemoryKeyStore } from 'agent-messaging-sdk/crypto';
import fc from 'fast-check';
import {
  answerToActions,
  isStoredCard,
  storedAnswerToActions,
  storedCardOf,
  type CardActionMap,
} from '../../../packages/sdk/src/chat/cards.js';

const MARK = 'chat-sdk-plaintext-7Q2x';

let world: TestWorld;
let bot: Chat;
let adapter: AmsAdapter;
const actions: ActionEvent[] = [];
const reactions: ReactionEvent[] = [];
const updated: Message[] = [];
let release: (() => void) | undefined;
let editRefused: unknown;

/** The next `event` of a user's client matching `pick`. */
function userNext<E extends keyof UserClientEvents>(
  user: TestWorld['user'],
  event: E,
  pick: (e: UserClientEvents[E][0]) => boolean = () => true,
): Promise<UserClientEvents[E][0]> {
  return new Promise((resolve) => {
    const on = (e: UserClientEvents[E][0]): void => {
      if (!pick(e)) return;
      user.off(event, on as never);
      resolve(e);
    };
    user.on(event, on as never);
  });
}

const waiters = new Set<() => void>();
/** Resolves once `check` holds, checked whenever a Chat SDK handler of this file ran (no sleeps). */
function until(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const test = (): void => {
      if (!check()) return;
      waiters.delete(test);
      resolve();
    };
    waiters.add(test);
    test();
  });
}
const ran = (): void => waiters.forEach((w) => w());

async function* answer(): AsyncGenerator<string | StreamChunk> {
  yield { type: 'task_update', id: 'look', title: 'Look it up', status: 'in_progress' };
  yield `Streaming ${MARK} `;
  yield { type: 'markdown_text', text: 'in parts.' };
  yield { type: 'task_update', id: 'look', title: 'Look it up', status: 'complete', output: 'found' };
}

async function* endless(signal: AbortSignal): AsyncGenerator<string> {
  yield 'counting: ';
  release?.();
  for (let n = 1; !signal.aborted; n++) {
    yield `${n} `;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

beforeAll(async () => {
  world = await createTestWorld({
    users: ['Ada', 'Bob'],
    agents: [{ name: 'Helper' }],
    groups: [{ name: 'Team', members: ['Ada', 'Bob', 'Helper'] }],
    agent: { options: { status: false } },
    relay: true,
  });
  adapter = createAmsAdapter({ agent: world.agent });
  bot = new Chat({
    userName: 'helper',
    adapters: { ams: adapter },
    state: createMemoryState(),
    logger: 'silent',
  });

  bot.onDirectMessage(async (thread, message) => {
    const text = message.text;
    if (text === 'stream') await thread.post(answer());
    else if (text === 'count') await thread.post(endless(thread.signal!));
    else if (text === 'card') {
      await thread.post(
        Card({
          title: 'Deploy 1.4.2?',
          children: [
            CardText('Production, 3 regions.'),
            Actions([
              Button({ id: 'deploy', label: 'Deploy', style: 'primary', value: 'v1.4.2' }),
              Button({ id: 'cancel', label: 'Cancel', style: 'danger' }),
            ]),
          ],
        }),
      );
    } else if (text === 'recard') {
      const sent = await thread.post(
        Card({ title: 'Ship?', children: [Actions([Button({ id: 'ship', label: 'Ship' })])] }),
      );
      await sent.edit(
        Card({
          title: 'Ship now or later?',
          children: [
            Actions([
              Button({ id: 'ship', label: 'Now' }),
              Button({ id: 'later', label: 'Later', value: 'friday' }),
            ]),
          ],
        }),
      );
      editRefused = await sent.edit('shipped').then(
        () => undefined,
        (err: unknown) => err,
      );
    } else if (text === 'dropcard') {
      const sent = await thread.post(
        Card({
          title: 'Restart the worker?',
          children: [Actions([Button({ id: 'restart', label: 'Restart' })])],
        }),
      );
      await sent.delete();
    } else if (text === 'file') {
      await thread.post({
        markdown: 'your report',
        files: [{ data: Buffer.from(`report ${MARK}`), filename: 'report.txt', mimeType: 'text/plain' }],
      });
    } else if (text === 'draft') {
      const sent = await thread.post('the build is runing');
      await sent.edit('the build is running');
    } else if (text === 'react') {
      await thread.adapter.addReaction(thread.id, message.id, emoji.thumbs_up);
    } else if (message.attachments.length > 0) {
      const [file] = message.attachments;
      const data = await file!.fetchData!();
      const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data);
      await thread.post(`got ${file!.name} (${file!.mimeType}): ${bytes.toString('utf8')}`);
    } else {
      await thread.post(`echo: ${text}`);
    }
  });
  bot.onNewMention(async (thread, message) => {
    await thread.post(`noted in ${thread.isDM ? 'a DM' : 'the group'}: ${message.text}`);
  });
  bot.onAction(async (event) => {
    actions.push(event);
    await event.thread?.post(`${event.actionId} (${event.value ?? 'no value'}) by ${event.user.userId}`);
  });
  bot.onReaction((event) => {
    reactions.push(event);
    ran();
  });
  bot.onMessageUpdated((_thread, message) => {
    updated.push(message);
    ran();
  });
  await bot.initialize();
});

afterAll(async () => {
  await bot.shutdown();
  await world.close();
});

describe('agent-messaging-sdk/chat: a Chat SDK bot on the service', () => {
  it('thread ids encode the conversation and its kind, and round-trip', () => {
    const id = encodeAmsThreadId({ conversationId: 'conv:1/é', kind: 'group' });
    expect(id).toMatch(/^ams:g:[A-Za-z0-9_-]+$/);
    expect(decodeAmsThreadId(id)).toEqual({ conversationId: 'conv:1/é', kind: 'group' });
    expect(adapter.isDM(encodeAmsThreadId({ conversationId: 'c', kind: 'dm' }))).toBe(true);
    for (const bad of ['slack:C1', 'ams:x:YQ', 'ams:d:', 'ams:d:a+b', 'ams:d:YQ:x', 'ams:d:YR']) {
      expect(() => decodeAmsThreadId(bad)).toThrow(/ams thread id/);
    }
  });

  it('answers a DM', async () => {
    await world.sendAsUser(`hello ${MARK}`);
    expect((await world.waitForReply({ kind: 'text' })).text).toBe(`echo: hello ${MARK}`);
  });

  it('answers a mention in a group, to every member, in a group thread', async () => {
    const [ada, bob] = world.users;
    const { conversationId } = world.groups[0]!;
    await world.sendAsUser('@helper standup at 10', { user: bob!, conversationId });
    for (const to of [ada!, bob!]) {
      const reply = await world.waitForReply({ kind: 'text', to, conversationId });
      expect(reply.text).toBe('noted in the group: @helper standup at 10');
    }
  });

  it('streams a reply with its plan step, signed by the agent', async () => {
    const parts = userNext(world.user, 'streamEnd');
    await world.sendAsUser('stream');
    const reply = await world.waitForReply({ kind: 'stream' });
    expect(reply.text).toBe(`Streaming ${MARK} in parts.`);
    expect((await parts).parts).toContainEqual(
      expect.objectContaining({
        type: 'step',
        id: 'look',
        title: 'Look it up',
        status: 'done',
        detail: 'found',
      }),
    );
  });

  it('a human stop aborts the Chat SDK turn and its stream', async () => {
    const started = new Promise<void>((resolve) => (release = resolve));
    const failed = userNext(world.user, 'streamError');
    await world.sendAsUser('count');
    await started;
    await world.user.stopTurn(world.conversationId);
    expect(await failed).toMatchObject({ reason: 'aborted', detail: 'stopped' });
    expect((await world.waitForReply({ kind: 'stream' })).text).toMatch(/^counting: 1 /);
  });

  it('sends a card as an artifact; the human picks a button and onAction gets it', async () => {
    await world.sendAsUser('card');
    const ask = await world.waitForReply({ kind: 'artifact' });
    expect(ask.content).toEqual({
      kind: 'form',
      title: 'Deploy 1.4.2?',
      fields: [
        {
          name: 'action',
          label: 'Production, 3 regions.',
          input: 'choice',
          required: true,
          options: ['Deploy', 'Cancel'],
        },
      ],
    });
    await world.answerArtifact(ask, { approve: { action: 'Deploy' } });
    const said = await world.waitForReply({ kind: 'text' });
    expect(said.text).toBe(`deploy (v1.4.2) by ${world.user.session!.userId}`);
    expect(actions).toHaveLength(1);
    expect(actions[0]).toMatchObject({
      actionId: 'deploy',
      value: 'v1.4.2',
      messageId: ask.artifact.artifactId,
    });
  });

  it('editing a card sends a new revision of its artifact; the answer to it maps to the new buttons', async () => {
    await world.sendAsUser('recard');
    const first = await world.waitForReply({ kind: 'artifact' });
    expect(first.content).toEqual({ kind: 'confirm', title: 'Ship?' });
    const second = await world.waitForReply({ kind: 'artifact' });
    expect(second.artifact.artifactId).toBe(first.artifact.artifactId);
    expect(second.content).toMatchObject({
      kind: 'form',
      title: 'Ship now or later?',
      fields: [{ options: ['Now', 'Later'] }],
    });
    await world.answerArtifact(second, { approve: { action: 'Later' } });
    expect((await world.waitForReply({ kind: 'text' })).text).toBe(
      `later (friday) by ${world.user.session!.userId}`,
    );
    expect(isValidationError(editRefused)).toBe(true);
    expect((editRefused as Error).message).toMatch(/only be edited into a card with buttons or selects/);
  });

  it('deleting a card closes its artifact: a last revision says so, the question can no longer be answered', async () => {
    await world.sendAsUser('dropcard');
    const asked = await world.waitForReply({ kind: 'artifact' });
    const closed = await world.waitForReply({ kind: 'artifact' });
    expect(closed.artifact).toMatchObject({ artifactId: asked.artifact.artifactId, revision: 2 });
    expect(closed.content).toEqual({
      kind: 'confirm',
      title: 'No longer needed: Restart the worker?',
      body: 'This card was deleted: it no longer needs an answer.',
    });
    await expect(asked.artifact.approve()).rejects.toMatchObject({ code: 'ARTIFACT_REVISION_CONFLICT' });
    await world.advanceTime(1_000);
    expect(await closed.artifact.approve()).toMatchObject({ accepted: false, state: 'expired' });
    world.relay!.assertNoPlaintext('Restart the worker?');
    world.relay!.assertNoPlaintext('No longer needed');
  });

  it("a card's answer survives a restart: posted by one adapter, it reaches onAction through another sharing the state", async () => {
    const state = createMemoryState();
    const sets: { key: string; value: unknown; ttlMs: number | undefined }[] = [];
    const set = state.set.bind(state);
    state.set = async <T>(key: string, value: T, ttlMs?: number): Promise<void> => {
      sets.push({ key, value, ttlMs });
      await set(key, value, ttlMs);
    };
    const ttlMs = 3_600_000;
    const threadId = encodeAmsThreadId({ conversationId: world.conversationId, kind: 'dm' });
    const first = new Chat({
      userName: 'helper',
      adapters: { ams: createAmsAdapter({ agent: world.agent, cards: { ttlMs } }) },
      state,
      logger: 'silent',
    });
    await first.initialize();
    await first.getAdapter('ams').postMessage(
      threadId,
      Card({
        title: 'Roll out 2.0?',
        children: [
          CardText('Rolling restart of 12 hosts.'),
          Actions([
            Button({ id: 'go', label: 'Go now', value: 'v2.0' }),
            Button({ id: 'hold', label: 'Hold' }),
          ]),
        ],
      }),
    );
    const ask = await world.waitForReply({ kind: 'artifact' });
    await first.shutdown(); // the process restarts: its in-memory map is gone

    const second = new Chat({
      userName: 'helper',
      adapters: { ams: createAmsAdapter({ agent: world.agent, cards: { ttlMs } }) },
      state,
      logger: 'silent',
    });
    const clicked = new Promise<ActionEvent>((resolve) => second.onAction((e) => resolve(e)));
    await second.initialize();
    try {
      await world.answerArtifact(ask, { approve: { action: 'Go now' } });
      expect(await clicked).toMatchObject({
        actionId: 'go',
        value: 'v2.0',
        messageId: ask.artifact.artifactId,
        threadId,
        user: { userId: world.user.session!.userId },
      });
      // Editing needs the artifact's handle, which the first process held: a typed error, nothing sent.
      const edit = second
        .getAdapter('ams')
        .editMessage(threadId, ask.artifact.artifactId, Card({ title: 'Roll out 2.1?', children: [] }));
      await expect(edit).rejects.toMatchObject({ name: 'ValidationError' });
    } finally {
      await second.shutdown();
    }
    // Kept as long as the artifact lives, with action ids and values only: no text of the card.
    const kept = sets.find((e) => e.key === `ams:card:${ask.artifact.artifactId}`)!;
    expect(kept.ttlMs).toBeGreaterThan(ttlMs - 60_000);
    expect(kept.ttlMs).toBeLessThanOrEqual(ttlMs);
    const json = JSON.stringify(kept.value);
    expect(json).toContain('"actionId":"go"');
    for (const text of ['Go now', 'Hold', 'Roll out 2.0?', 'Rolling restart'])
      expect(json).not.toContain(text);
  });

  it('reactions both ways', async () => {
    const sent = await world.sendAsUser('react');
    const got = userNext(world.user, 'reaction');
    expect(await got).toMatchObject({ messageId: sent, emoji: '👍', senderId: world.agentId });
    await world.reactAsUser(sent, '🎉');
    await until(() => reactions.length === 1);
    expect(reactions[0]).toMatchObject({ messageId: sent, rawEmoji: '🎉', added: true });
    expect(reactions[0]!.emoji.name).toBe('party');
  });

  it('files both ways, encrypted', async () => {
    await world.sendAsUser('file');
    const file = await world.waitForReply({ kind: 'file' });
    expect(file.name).toBe('report.txt');
    expect(new TextDecoder().decode(await file.bytes())).toBe(`report ${MARK}`);
    expect((await world.waitForReply({ kind: 'text' })).text).toBe('your report');
    await world.sendFileAsUser(`notes ${MARK}`, { name: 'notes.txt', contentType: 'text/plain' });
    expect((await world.waitForReply({ kind: 'text' })).text).toBe(
      `got notes.txt (text/plain): notes ${MARK}`,
    );
  });

  it('edits both ways', async () => {
    const edited = userNext(world.user, 'messageEdited');
    await world.sendAsUser('draft');
    const first = await world.waitForReply({ kind: 'text' });
    expect(first.text).toBe('the build is runing');
    expect(await edited).toMatchObject({
      targetId: first.messageId,
      text: 'the build is running',
      verified: true,
    });

    const question = await world.sendAsUser('what is 2+2?');
    await world.waitForReply({ kind: 'text' });
    await world.user.edit(world.conversationId, question, { type: 'text', text: 'what is 2+3?' });
    await until(() => updated.length === 1);
    expect(updated[0]).toMatchObject({ id: question, text: 'what is 2+3?', metadata: { edited: true } });
  });

  it('the relay never saw the plaintext', () => {
    world.relay!.assertNoPlaintext(MARK);
    world.relay!.assertNoPlaintext('Deploy 1.4.2?');
    world.relay!.assertNoPlaintext('the build is running');
  });
});

describe('agent-messaging-sdk/chat: the Agent underneath', () => {
  it('an adapter without an Agent builds one, connects it in initialize() and closes it in shutdown()', async () => {
    const { agentId, token } = await world.server.control.createAgent({
      ownerId: world.user.session!.userId,
      name: 'Owned',
    });
    const owned = createAmsAdapter({
      baseUrl: world.server.url,
      agentId,
      token,
      agentOptions: { keyStore: new MemoryKeyStore(), shutdownSignals: false, logger: false },
    });
    const ownBot = new Chat({
      userName: 'owned',
      adapters: { ams: owned },
      state: createMemoryState(),
      logger: 'silent',
    });
    ownBot.onDirectMessage(async (thread, message) => {
      await thread.post(`owned: ${message.text}`);
    });
    expect(owned.agent.state).toBe('idle');
    await ownBot.initialize();
    expect(owned.agent.state).toBe('running');
    const { conversationId } = await world.user.addAgent(agentId);
    const answered = userNext(world.user, 'message', (m) => m.senderId === agentId);
    await world.sendAsUser('hi', { conversationId });
    expect((await answered).payload).toEqual({ type: 'text', text: 'owned: hi' });
    await ownBot.shutdown();
    expect(owned.agent.state).toBe('closed');
  });

  it('without an Agent nor its variables, a typed error names what is missing', () => {
    const saved = { ...process.env };
    delete process.env['AMS_BASE_URL'];
    delete process.env['AMS_AGENT_ID'];
    delete process.env['AMS_AGENT_TOKEN'];
    try {
      expect(() => createAmsAdapter()).toThrow(/needs an agent, or baseUrl \(or AMS_BASE_URL\)/);
      expect(() => createAmsAdapter({ baseUrl: 'http://127.0.0.1:1' })).toThrow(
        /agentId \(or AMS_AGENT_ID\)/,
      );
    } finally {
      Object.assign(process.env, saved);
    }
  });

  it('in WebSocket mode nothing comes by webhook: bot.webhooks.ams answers 404', async () => {
    const res = await bot.webhooks.ams!(
      new Request('http://127.0.0.1/webhook', { method: 'POST', body: '{}' }),
    );
    expect(res.status).toBe(404);
  });
});

describe('agent-messaging-sdk/chat: an Agent in webhook mode', () => {
  let hooked: TestWorld;
  let hookBot: Chat;
  beforeAll(async () => {
    hooked = await createTestWorld({ agent: { mode: 'webhook', options: { status: false } } });
    hookBot = new Chat({
      userName: 'hooked',
      adapters: { ams: createAmsAdapter({ agent: hooked.agent }) },
      state: createMemoryState(),
      logger: 'silent',
    });
    hookBot.onDirectMessage(async (thread, message) => {
      await thread.post(message.text === 'stream' ? answer() : `by webhook: ${message.text}`);
    });
    await hookBot.initialize();
  });
  afterAll(async () => {
    await hookBot.shutdown();
    await hooked.close();
  });

  it('answers and streams (over REST)', async () => {
    await hooked.sendAsUser('hello');
    expect((await hooked.waitForDelivery()).transport).toBe('webhook');
    expect((await hooked.waitForReply({ kind: 'text' })).text).toBe('by webhook: hello');
    await hooked.sendAsUser('stream');
    expect((await hooked.waitForReply({ kind: 'stream' })).text).toBe(`Streaming ${MARK} in parts.`);
  });
});

describe('a card record in the state', () => {
  const choice = fc.record({
    label: fc.string({ minLength: 1, maxLength: 40 }),
    actionId: fc.string({ maxLength: 20 }),
    value: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
  });
  const map: fc.Arbitrary<CardActionMap> = fc.oneof(
    fc.record({
      kind: fc.constant('confirm' as const),
      fields: fc.record({ confirm: fc.array(choice, { minLength: 1, maxLength: 1 }) }),
    }),
    fc.record({
      kind: fc.constant('form' as const),
      fields: fc.dictionary(
        fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/),
        fc.uniqueArray(choice, { selector: (c) => c.label, minLength: 1, maxLength: 5 }),
        { minKeys: 1, maxKeys: 4 },
      ),
    }),
  );

  it('fuzz: maps any answer as the in-memory map does, keeps no label, and rejects what is not a record', async () => {
    await fc.assert(
      fc.asyncProperty(map, fc.nat(), async (actions, pick) => {
        const stored = await storedCardOf('ams:d:YQ', actions, 1);
        expect(isStoredCard(JSON.parse(JSON.stringify(stored)))).toBe(true);
        for (const choices of Object.values(stored.actions.fields)) {
          for (const c of choices) expect(c.label).toMatch(/^[A-Za-z0-9_-]{22}$/);
        }
        // An answer picking one label per field (or nothing, or a label the card never had).
        const data = Object.fromEntries(
          Object.entries(actions.fields).map(([field, choices], i) => [
            field,
            (pick + i) % 3 === 2 ? 'not a label' : choices[(pick + i) % choices.length]!.label,
          ]),
        );
        const strip = (cs: readonly { actionId: string; value?: string | undefined }[]) =>
          cs.map((c) => [c.actionId, c.value]);
        expect(strip(await storedAnswerToActions(stored, data))).toEqual(
          strip(answerToActions(actions, data)),
        );
      }),
      { seed: 29, numRuns: 100 },
    );
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(isStoredCard(value)).toBe(false);
      }),
      { seed: 29, numRuns: 200 },
    );
  });
});
