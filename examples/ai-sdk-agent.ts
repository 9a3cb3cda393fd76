/**
 * An AI SDK agent end to end, without network (docs/ai-sdk.md): `streamText`
 * with a mock language model (`ai/test`) streamed into an end-to-end encrypted
 * reply through `agent-messaging-sdk/ai`. Each model step is a plan step, the
 * reasoning, text and tool call are stream parts, the `weather` tool runs
 * only once the human approved it (a confirm artifact), and the human's stop
 * aborts the model call.
 *
 *   ams serve --dev --port 8080 &
 *   ams dev bootstrap > .env
 *   npx tsx --env-file=.env examples/ai-sdk-agent.ts
 *
 * Then ask it "what is the weather in Oslo?" (approve the tool), or "count
 * to infinity" and stop it.
 */
// #region imports
import { streamText, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { Agent, isMessage } from 'agent-messaging-sdk';
import { runWithApprovals, toModelMessages } from 'agent-messaging-sdk/ai';
// #endregion imports
import { fileURLToPath } from 'node:url';
import { agentEnv } from './env.js';

// #region model
/** What the mock model streams: the parts a real provider streams. */
type Chunk =
  | { type: 'reasoning' | 'text'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: string };

/** The chunks of one answer, as a language model's stream (`doStream`), waiting 5 ms per chunk. */
function modelStream(chunks: Iterable<Chunk>, abortSignal: AbortSignal | undefined) {
  const iterator = chunks[Symbol.iterator]();
  let sent = 0;
  let toolCalls = false;
  const usage = {
    inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 10, text: 10, reasoning: undefined },
  };
  return new ReadableStream({
    start(controller) {
      controller.enqueue({ type: 'stream-start', warnings: [] });
    },
    async pull(controller) {
      try {
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 5);
          abortSignal?.addEventListener('abort', () => (clearTimeout(timer), reject(abortSignal.reason)));
        });
      } catch (err) {
        console.log(`model: aborted after ${sent} chunks`);
        throw err;
      }
      const next = iterator.next();
      if (next.done === true) {
        const finishReason = { unified: toolCalls ? 'tool-calls' : 'stop', raw: undefined } as const;
        controller.enqueue({ type: 'finish', finishReason, usage });
        controller.close();
        return;
      }
      sent += 1;
      const chunk = next.value;
      if (chunk.type === 'tool-call') {
        toolCalls = true;
        controller.enqueue(chunk);
      } else {
        const id = `${chunk.type}-${sent}`;
        controller.enqueue({ type: `${chunk.type}-start`, id });
        controller.enqueue({ type: `${chunk.type}-delta`, id, delta: chunk.text });
        controller.enqueue({ type: `${chunk.type}-end`, id });
      }
    },
  });
}

/** Yields `text` word by word. */
function* words(type: 'reasoning' | 'text', text: string): Generator<Chunk> {
  for (const word of text.split(/(?<= )/)) yield { type, text: word };
}

/** A mock model (no network): it asks for the weather tool, reads its result, or counts until stopped. */
export const model = new MockLanguageModelV4({
  doStream: async ({ prompt, abortSignal }) => {
    const last = prompt.at(-1)!;
    const said = JSON.stringify(last.content); // the user's text, or the tool's result
    const city = /weather in (\w+)/i.exec(said)?.[1];
    function* answer(): Generator<Chunk> {
      if (last.role === 'tool') {
        const result = /"tempC":(-?\d+)/.exec(said);
        yield* words('text', result ? `It is ${result[1]} °C there.` : 'I could not check the weather.');
      } else if (city !== undefined) {
        yield* words('reasoning', 'The user wants the weather: use the tool. ');
        yield* words('text', `Let me check the weather in ${city}. `);
        yield {
          type: 'tool-call',
          toolCallId: 'call-1',
          toolName: 'weather',
          input: JSON.stringify({ city }),
        };
      } else if (/count/i.test(said)) {
        yield* words('text', 'Counting: ');
        for (let n = 1; ; n += 1) yield { type: 'text', text: `${n} ` }; // ends only when stopped
      } else {
        yield* words('text', 'Ask me about the weather in a city, or to count.');
      }
    }
    return { stream: modelStream(answer(), abortSignal) };
  },
});

/** The tools: `weather` runs only once the human approved it. */
export const tools = {
  weather: tool({
    description: 'The current temperature in a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, tempC: -3 }),
  }),
};
// #endregion model

// #region agent
/** Makes `agent` answer with the model; a test can call it on the kit's agent. */
export function aiAgent(agent: Agent): Agent {
  const histories = new Map<string, ModelMessage[]>();
  agent.filter(isMessage, async (ctx) => {
    const { conversationId } = ctx.event;
    const history = histories.get(conversationId) ?? [];
    const run = await runWithApprovals(ctx, {
      agent,
      messages: [...history, ...toModelMessages(ctx.messages, { agentId: ctx.agentId })],
      call: (messages) =>
        streamText({
          model,
          tools,
          toolApproval: { weather: 'user-approval' },
          messages,
          abortSignal: ctx.signal, // the human's stop cancels the model call
        }),
      approvalTimeoutMs: 10 * 60_000,
    });
    histories.set(conversationId, run.messages);
    console.log(run.stopped ? `stopped in ${conversationId}` : `answered in ${conversationId}: ${run.text}`);
  });
  return agent;
}
// #endregion agent

// Run as a script (a test imports `aiAgent` instead).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const agent = aiAgent(new Agent(agentEnv()));
  agent.on('error', (err) => console.error('error:', err));
  agent.on('fatal', (err) => {
    console.error('stopped for good:', err);
    process.exit(1);
  });
  await agent.connect();
  console.log(`ai-sdk-agent: connected as ${agent.agentId}`);
}
