/**
 * The AI SDK bridge (`agent-messaging-sdk/ai`) against the reference server:
 * `streamText` with the AI SDK's mock language model (no network) streamed to
 * a UserClient through a relay that must never see the plaintext; tool
 * approval through a confirm artifact (approved, denied); the human's stop
 * aborting the model call; a model error ending the stream with a typed error.
 */
import { afterAll, assert, beforeAll, describe, expect, it } from 'vitest';
import { stepCountIs, streamText, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV4, simulateReadableStream } from 'ai/test';
import { z } from 'zod';
import {
  createTestWorld,
  type ArtifactReply,
  type TestReply,
  type TestWorld,
} from '@agent-messaging/dev/testing';
import { isMessage, type MessageContext, type UserClientEvents } from 'agent-messaging-sdk';
import {
  isModelStreamError,
  pipeToReply,
  runWithApprovals,
  toModelMessages,
  type ApprovedRun,
  type PipedReply,
} from 'agent-messaging-sdk/ai';

type Ended = UserClientEvents['streamEnd'][0];
type Failed = UserClientEvents['streamError'][0];
type StreamResult = Awaited<ReturnType<MockLanguageModelV4['doStream']>>;
type Chunk = StreamResult['stream'] extends ReadableStream<infer T> ? T : never;

const usage = {
  inputTokens: { total: 7, noCache: 7, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 11, text: 11, reasoning: undefined },
};
const finish = (unified: 'stop' | 'tool-calls'): Chunk => ({
  type: 'finish',
  finishReason: { unified, raw: undefined },
  usage,
});
const text = (id: string, delta: string): Chunk[] => [
  { type: 'text-start', id },
  { type: 'text-delta', id, delta },
  { type: 'text-end', id },
];
/** One model answer, as a provider streams it. */
const answer = (...chunks: Chunk[]): StreamResult => ({
  stream: simulateReadableStream<Chunk>({ chunks: [{ type: 'stream-start', warnings: [] }, ...chunks] }),
});
const weatherCall = (city: string): Chunk => ({
  type: 'tool-call',
  toolCallId: `call-${city}`,
  toolName: 'weather',
  input: JSON.stringify({ city }),
});
const tools = {
  weather: tool({
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, tempC: -3 }),
  }),
};

describe('agent-messaging-sdk/ai against the reference server', () => {
  let world: TestWorld;
  /** What the agent's handler runs for the next message. */
  let turn: (ctx: MessageContext) => Promise<unknown>;
  let outcome: Promise<{ value?: unknown; error?: unknown }>;
  let settle: (o: { value?: unknown; error?: unknown }) => void;
  const nextOutcome = (): void => {
    outcome = new Promise((resolve) => (settle = resolve));
  };
  const ended = (): Promise<Ended> => new Promise((resolve) => world.user.once('streamEnd', resolve));
  const failed = (): Promise<Failed> => new Promise((resolve) => world.user.once('streamError', resolve));

  beforeAll(async () => {
    world = await createTestWorld({ relay: true });
    world.agent.filter(isMessage, async (ctx) => {
      try {
        settle({ value: await turn(ctx) });
      } catch (error) {
        settle({ error });
      }
    });
  });
  afterAll(() => world.close());

  it('streams text, reasoning, steps, a tool call and its result and a source; the relay sees none of it', async () => {
    const model = new MockLanguageModelV4({
      doStream: [
        answer(
          { type: 'reasoning-start', id: 'r' },
          { type: 'reasoning-delta', id: 'r', delta: 'Zanzibar-reasoning: use the tool' },
          { type: 'reasoning-end', id: 'r' },
          ...text('t1', 'Checking Zanzibar-4921. '),
          weatherCall('Oslo'),
          finish('tool-calls'),
        ),
        answer(
          { type: 'source', sourceType: 'url', id: 'src-1', url: 'https://example.com/oslo', title: 'Oslo' },
          ...text('t2', 'It is -3 °C.'),
          finish('stop'),
        ),
      ],
    });
    nextOutcome();
    turn = (ctx) =>
      pipeToReply(
        ctx,
        streamText({
          model,
          tools,
          stopWhen: stepCountIs(3),
          prompt: ctx.text ?? '',
          abortSignal: ctx.signal,
        }),
      );
    const end = ended();
    await world.sendAsUser('weather in Oslo?');
    const { parts, text: shown } = await end;
    expect(shown).toBe('Checking Zanzibar-4921. It is -3 °C.');
    expect(parts).toEqual([
      { type: 'step', id: 'step-1', title: 'Step 1', status: 'done' },
      { type: 'reasoning', text: 'Zanzibar-reasoning: use the tool' },
      { type: 'text', text: 'Checking Zanzibar-4921. ' },
      {
        type: 'tool',
        callId: 'call-Oslo',
        name: 'weather',
        input: { city: 'Oslo' },
        state: 'output-available',
        output: { city: 'Oslo', tempC: -3 },
      },
      { type: 'step', id: 'step-2', title: 'Step 2', status: 'done' },
      { type: 'source', id: 'src-1', url: 'https://example.com/oslo', title: 'Oslo' },
      { type: 'text', text: 'It is -3 °C.' },
    ]);
    const { value } = await outcome;
    const reply = value as PipedReply;
    expect(reply).toMatchObject({
      text: 'Checking Zanzibar-4921. It is -3 °C.',
      reasoning: 'Zanzibar-reasoning: use the tool',
      steps: 2,
      finishReason: 'stop',
      stopped: false,
      approvals: [],
    });
    expect(reply.usage?.outputTokens).toBe(22);
    await world.waitForReply({ kind: 'stream' }); // the kit's queue of replies, in order
    world.relay!.assertNoPlaintext('Zanzibar-4921');
    world.relay!.assertNoPlaintext('Zanzibar-reasoning');
    world.relay!.assertNoPlaintext('example.com/oslo');
  });

  /** A model that asks for the weather tool, then answers with what the tool gave (or its denial). */
  const approvalModel = (city: string) =>
    new MockLanguageModelV4({
      doStream: async ({ prompt }) => {
        const last = JSON.stringify(prompt.at(-1)!.content);
        if (prompt.at(-1)!.role !== 'tool') {
          return answer(...text('t1', `Checking ${city}. `), weatherCall(city), finish('tool-calls'));
        }
        return answer(
          ...text('t2', /"tempC":-3/.test(last) ? 'It is -3 °C.' : 'I may not check.'),
          finish('stop'),
        );
      },
    });
  const approvalTurn = (city: string) => (ctx: MessageContext) =>
    runWithApprovals(ctx, {
      agent: world.agent,
      messages: toModelMessages(ctx.messages, { agentId: ctx.agentId }),
      call: (messages) =>
        streamText({
          model: approvalModel(city),
          tools,
          toolApproval: { weather: 'user-approval' },
          messages,
          abortSignal: ctx.signal,
        }),
    });

  /**
   * The human's view of a question nobody needs answered any more: a new revision saying so replaces
   * it, the question itself can no longer be answered, and the new revision expires in the shortest
   * time the service allows (1 s of the service's clock), after which it cannot be answered either.
   */
  const expectClosed = async (asked: ArtifactReply, closed: TestReply, why: RegExp): Promise<void> => {
    assert(closed.kind === 'artifact');
    expect(closed.artifact).toMatchObject({ artifactId: asked.artifact.artifactId, revision: 2 });
    expect(closed.content).toEqual({
      kind: 'confirm',
      title: `No longer needed: ${asked.content.title}`,
      body: expect.stringMatching(why),
    });
    await expect(asked.artifact.approve()).rejects.toMatchObject({ code: 'ARTIFACT_REVISION_CONFLICT' });
    await world.advanceTime(1_000);
    expect(await closed.artifact.approve()).toMatchObject({ accepted: false, state: 'expired' });
    world.relay!.assertNoPlaintext('No longer needed'); // sealed, as the question was
  };

  it('asks the human with a confirm artifact; approved, the tool runs and the model goes on', async () => {
    nextOutcome();
    turn = approvalTurn('Oslo');
    const end = ended();
    await world.sendAsUser('weather in Oslo?');
    const ask = await world.waitForReply({ kind: 'artifact' });
    expect(ask.content).toMatchObject({ kind: 'confirm', title: 'Run weather?', body: '{"city":"Oslo"}' });
    await world.answerArtifact(ask, { approve: {} });
    const { text: shown, parts } = await end;
    await world.waitForReply({ kind: 'stream' });
    expect(shown).toBe('Checking Oslo. It is -3 °C.');
    expect(parts.find((p) => p.type === 'tool')).toMatchObject({
      callId: 'call-Oslo',
      state: 'output-available',
      output: { city: 'Oslo', tempC: -3 },
    });
    const run = (await outcome).value as ApprovedRun;
    expect(run.decisions).toEqual([expect.objectContaining({ approved: true })]);
    expect(run.text).toBe('Checking Oslo. It is -3 °C.');
    // The history to keep: the question, the call with its approval, the answer, the result and the reply.
    expect(run.messages.map((m: ModelMessage) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ]);
  });

  it('denied, the tool does not run: the call shows the denial and the model is told', async () => {
    nextOutcome();
    turn = approvalTurn('Bergen');
    const end = ended();
    await world.sendAsUser('weather in Bergen?');
    const ask = await world.waitForReply({ kind: 'artifact' });
    await world.answerArtifact(ask, { deny: 'user_rejected' });
    const { text: shown, parts } = await end;
    await world.waitForReply({ kind: 'stream' });
    expect(shown).toBe('Checking Bergen. I may not check.');
    expect(parts.find((p) => p.type === 'tool')).toMatchObject({ callId: 'call-Bergen', error: 'denied' });
    const run = (await outcome).value as ApprovedRun;
    expect(run.decisions).toEqual([
      expect.objectContaining({ approved: false, reason: 'denied (user_rejected)' }),
    ]);
  });

  it("unanswered within approvalTimeoutMs (a timer on the agent's clock), the call is denied and the model told", async () => {
    nextOutcome();
    turn = (ctx) =>
      runWithApprovals(ctx, {
        agent: world.agent,
        messages: toModelMessages(ctx.messages),
        call: (messages) =>
          streamText({
            model: approvalModel('Tromsø'),
            tools,
            toolApproval: { weather: 'user-approval' },
            messages,
            abortSignal: ctx.signal,
          }),
        approvalTimeoutMs: 50,
      });
    await world.sendAsUser('weather in Tromsø?');
    const asked = await world.waitForReply({ kind: 'artifact' }); // asked, never answered
    await expectClosed(asked, await world.waitForReply(), /No answer came in time/);
    const reply = await world.waitForReply({ kind: 'stream' });
    expect(reply.text).toBe('Checking Tromsø. I may not check.');
    const run = (await outcome).value as ApprovedRun;
    expect(run.decisions).toEqual([
      expect.objectContaining({ approved: false, reason: 'no answer in time' }),
    ]);
  });

  it('the human stops mid-stream: the mock model sees its abort signal, the stream ends "stopped"', async () => {
    let modelAborted: (reason: unknown) => void;
    const aborted = new Promise<unknown>((resolve) => (modelAborted = resolve));
    const model = new MockLanguageModelV4({
      doStream: async ({ abortSignal }) => {
        abortSignal?.addEventListener('abort', () => modelAborted(abortSignal.reason), { once: true });
        let n = 0;
        return {
          stream: new ReadableStream<Chunk>({
            start: (c) => {
              c.enqueue({ type: 'stream-start', warnings: [] });
              c.enqueue({ type: 'text-start', id: 't' });
            },
            pull: async (c) => {
              await new Promise((resolve) => setTimeout(resolve, 2));
              n += 1;
              c.enqueue({ type: 'text-delta', id: 't', delta: `${n} ` }); // never ends on its own
            },
          }),
        };
      },
    });
    nextOutcome();
    turn = (ctx) => pipeToReply(ctx, streamText({ model, prompt: 'count', abortSignal: ctx.signal }));
    const counting = new Promise<void>((resolve) => {
      const listener = (d: UserClientEvents['streamDelta'][0]): void => {
        if (!d.text.includes('3 ')) return;
        world.user.off('streamDelta', listener);
        resolve();
      };
      world.user.on('streamDelta', listener);
    });
    const failure = failed();
    await world.sendAsUser('count to infinity');
    await counting;
    await world.user.stopTurn(world.conversationId);
    expect(await failure).toMatchObject({ reason: 'aborted', detail: 'stopped' });
    expect(await world.waitForReply({ kind: 'stream' })).toMatchObject({ status: 'failed' });
    expect(String(await aborted)).toMatch(/stopped by a human/);
    const reply = (await outcome).value as PipedReply;
    expect(reply).toMatchObject({ stopped: true, finishReason: undefined, usage: undefined });
    expect(reply.text).toMatch(/^1 2 3 /);
  });

  it('the human stops while a question is open: the wait ends, the question is closed, the stream ends "stopped"', async () => {
    nextOutcome();
    turn = approvalTurn('Narvik');
    const failure = failed();
    await world.sendAsUser('weather in Narvik?');
    const asked = await world.waitForReply({ kind: 'artifact' });
    await world.user.stopTurn(world.conversationId);
    expect(await failure).toMatchObject({ reason: 'aborted', detail: 'stopped' });
    const run = (await outcome).value as ApprovedRun;
    expect(run).toMatchObject({ stopped: true, decisions: [] });
    // The stream's end (the Agent aborts it on the stop) and the closing revision race to the human.
    const replies = [await world.waitForReply(), await world.waitForReply()];
    expect(replies.find((r) => r.kind === 'stream')).toMatchObject({ status: 'failed' });
    await expectClosed(
      asked,
      replies.find((r) => r.kind === 'artifact')!,
      /The turn was stopped/,
    );
  });

  it('toModelMessages gives files as file parts when asked: downloaded and checked, within a cap', async () => {
    nextOutcome();
    turn = async (ctx) => ctx.messages;
    const content = 'Zanzibar-file 5512: the plan';
    await world.sendFileAsUser(content, { name: 'plan.txt', contentType: 'text/plain' });
    const history = (await outcome).value as MessageContext['messages'];
    const asText = [{ role: 'user', content: `[file: plan.txt (text/plain, ${content.length} bytes)]` }];
    expect(toModelMessages(history)).toEqual(asText); // by default: one line, nothing downloaded
    const files = { from: world.agent.files, maxBytes: 1_024 };
    expect(await toModelMessages(history, { names: true, files })).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: `${world.user.session!.userId}:` },
          {
            type: 'file',
            data: new TextEncoder().encode(content),
            mediaType: 'text/plain',
            filename: 'plan.txt',
          },
        ],
      },
    ]);
    // Over the cap, or a media type not asked for: one line of text, as without files.
    expect(await toModelMessages(history, { files: { ...files, maxBytes: 16 } })).toEqual(asText);
    expect(
      await toModelMessages(history, { files: { ...files, mediaTypes: (t) => t.startsWith('image/') } }),
    ).toEqual(asText);
    // The download's own checks hold: a file whose signed size or hash does not match is refused.
    const forged = [{ ...history[0]!, payload: { ...history[0]!.payload, size: content.length - 1 } }];
    await expect(toModelMessages(forged, { files })).rejects.toMatchObject({ code: 'FILE_CORRUPT' });
    world.relay!.assertNoPlaintext('Zanzibar-file');
  });

  it('a model error ends the stream and rejects with a ModelStreamError', async () => {
    const model = new MockLanguageModelV4({
      doStream: answer(...text('t', 'Half an ans'), { type: 'error', error: new Error('overloaded') }),
    });
    nextOutcome();
    turn = (ctx) =>
      pipeToReply(
        ctx,
        streamText({ model, prompt: 'hi', abortSignal: ctx.signal, onError: () => undefined }),
      );
    const failure = failed();
    await world.sendAsUser('hi');
    expect(await failure).toMatchObject({ reason: 'aborted', detail: 'the model failed' });
    expect(await world.waitForReply({ kind: 'stream' })).toMatchObject({ status: 'failed' });
    const { error } = await outcome;
    expect(isModelStreamError(error)).toBe(true);
    expect(error).toMatchObject({
      name: 'ModelStreamError',
      code: 'MODEL_STREAM_FAILED',
      text: 'Half an ans',
    });
    expect((error as Error).cause).toMatchObject({ message: 'overloaded' });
  });

  it('a part the stream refuses (a tool name over 128 characters) ends the reply and rejects with the ValidationError', async () => {
    const name = 'x'.repeat(200);
    const model = new MockLanguageModelV4({
      doStream: answer(
        ...text('t', 'Calling. '),
        { type: 'tool-call', toolCallId: 'c', toolName: name, input: '{}' },
        finish('tool-calls'),
      ),
    });
    nextOutcome();
    turn = (ctx) => pipeToReply(ctx, streamText({ model, tools, prompt: 'hi', abortSignal: ctx.signal }));
    const failure = failed();
    await world.sendAsUser('call a tool with a long name');
    expect(await failure).toMatchObject({ reason: 'aborted', detail: 'the reply failed' });
    expect(await world.waitForReply({ kind: 'stream' })).toMatchObject({ status: 'failed' });
    expect((await outcome).error).toMatchObject({ name: 'ValidationError' });
  });
});

describe('toModelMessages', () => {
  it('maps senders to roles, files and artifacts to one-line text, and leaves reactions out', () => {
    const file = { type: 'file', name: 'plan.pdf', content_type: 'application/pdf', size: 1234 };
    const history = [
      { senderId: 'u1', payload: { type: 'text', text: 'hi' } },
      { senderId: 'bot', payload: { type: 'text', text: 'hello' } },
      { senderId: 'u1', payload: file },
      { senderId: 'u1', payload: { type: 'reaction', emoji: '👍' } },
      { senderId: 'bot', payload: { type: 'artifact', content: { kind: 'confirm', title: 'Deploy?' } } },
      { role: 'assistant', text: 'kept by the agent' },
    ] as unknown as Parameters<typeof toModelMessages>[0];
    expect(toModelMessages(history, { agentId: 'bot' })).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: '[file: plan.pdf (application/pdf, 1234 bytes)]' },
      { role: 'assistant', content: '[asked the human (confirm): Deploy?]' },
      { role: 'assistant', content: 'kept by the agent' },
    ]);
    expect(toModelMessages(history.slice(0, 1), { names: true })).toEqual([
      { role: 'user', content: 'u1: hi' },
    ]);
  });
});
