/**
 * An LLM agent end to end, without network (docs/llm-agents.md): a fake model
 * (an async generator that yields text deltas and a tool call, and observes an
 * AbortSignal) stands in for a real one. For each turn the agent sets a status,
 * streams the answer with a plan step, the tool call and its result, asks the
 * human to approve the tool through a confirm artifact awaited inside the
 * handler, honours `ctx.signal` (the human's stop) and keeps a short history
 * per conversation. Messages sent in a burst become one turn (`debounce`).
 *
 *   ams serve --dev --port 8080 &
 *   ams dev bootstrap > .env
 *   npx tsx --env-file=.env examples/llm-agent.ts
 *
 * Then ask it "what is the weather in Oslo?" (approve the tool), or "count
 * to infinity" and stop it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Agent, isMessage, type StreamWriter } from 'agent-messaging-sdk';
import { agentEnv } from './env.js';

// #region model
/** One entry of a conversation's history, as a chat model takes it. */
interface Turn {
  readonly role: 'user' | 'assistant' | 'tool';
  readonly text: string;
}

/** The tool call a model asks for. */
interface ToolCall {
  readonly type: 'tool-call';
  readonly callId: string;
  readonly name: 'weather';
  readonly input: { readonly city: string };
}

/** What the model yields: text deltas, or a tool call that ends its round. */
type ModelChunk = { readonly type: 'text'; readonly text: string } | ToolCall;

/**
 * A stand-in for an LLM SDK's streaming call: takes the history and an
 * AbortSignal, yields text deltas and at most one tool call. Every token waits
 * on the signal, as a real HTTP stream would: a stop rejects with an AbortError.
 */
async function* fakeModel(
  history: readonly Turn[],
  { signal }: { signal: AbortSignal },
): AsyncGenerator<ModelChunk> {
  let tokens = 0;
  async function* say(text: string): AsyncGenerator<ModelChunk> {
    for (const token of text.split(/(?<= )/)) {
      await sleep(5, undefined, { signal });
      tokens += 1;
      yield { type: 'text', text: token };
    }
  }
  try {
    const last = history.at(-1)!;
    const city = /weather in (\w+)/i.exec(last.text)?.[1];
    if (last.role === 'tool') {
      const result = JSON.parse(last.text) as { city?: string; tempC?: number; error?: string };
      yield* say(
        result.error === undefined
          ? `It is ${result.tempC} °C in ${result.city}.`
          : `I could not check the weather: ${result.error}.`,
      );
    } else if (city !== undefined) {
      yield* say(`Let me check the weather in ${city}. `);
      yield { type: 'tool-call', callId: `call-${history.length}`, name: 'weather', input: { city } };
    } else if (/count/i.test(last.text)) {
      yield* say(`Counting (${history.length - 1} earlier entries in this conversation): `);
      for (let n = 1; ; n += 1) yield* say(`${n} `); // ends only when the signal aborts
    } else {
      yield* say(`You said: "${last.text}". Ask me about the weather in a city, or to count.`);
    }
  } catch (err) {
    if (signal.aborted) {
      console.log(`model: cancelled after ${tokens} tokens (${(signal.reason as Error).message})`);
    }
    throw err;
  }
}
// #endregion model

/** The tool itself (a real one would call a weather API with the same signal). */
function weather(input: { city: string }): { city: string; tempC: number } {
  return { city: input.city, tempC: input.city === 'Oslo' ? -3 : 12 };
}

// #region agent
/** Three quick messages are one turn: `ctx.messages` holds them, oldest first. */
export const turns = { strategy: 'debounce', windowMs: 300, maxMessages: 10 } as const;

/** The last HISTORY_LIMIT entries of each conversation, in memory. */
const HISTORY_LIMIT = 20;
const histories = new Map<string, Turn[]>();
function remember(conversationId: string, turn: Turn): Turn[] {
  const history = histories.get(conversationId) ?? [];
  history.push(turn);
  history.splice(0, Math.max(0, history.length - HISTORY_LIMIT));
  histories.set(conversationId, history);
  return history;
}
// #endregion agent

// #region approval
/** Asks the human to approve a tool call; a stop (the turn's signal) ends the wait too. */
async function approved(
  agent: Agent,
  conversationId: string,
  call: ToolCall,
  signal: AbortSignal,
): Promise<boolean> {
  const ask = await agent.artifacts.send(conversationId, {
    content: { kind: 'confirm', title: `Run ${call.name}?`, body: JSON.stringify(call.input) },
    ttlMs: 10 * 60_000,
  });
  signal.throwIfAborted();
  const stopped = new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
  );
  stopped.catch(() => undefined); // the race below reports it
  try {
    const outcome = await Promise.race([ask.response(), stopped]);
    return outcome.status === 'approved';
  } catch (err) {
    await ask.withdraw(); // stopped: "No longer needed: …" replaces the question, gone a second later
    throw err;
  }
}

/** Runs one tool call: shown as a step and a tool part, approved by the human first. */
async function runTool(
  agent: Agent,
  conversationId: string,
  stream: StreamWriter,
  call: ToolCall,
  signal: AbortSignal,
): Promise<Turn> {
  const step = { id: call.callId, title: `Run ${call.name} (needs your approval)` };
  await stream.toolCall({ callId: call.callId, name: call.name, input: call.input });
  await stream.step({ ...step, status: 'pending' });
  // Not awaited: status posts are coalesced to one a second, the question should not wait for it.
  agent.status(conversationId, 'waiting for your approval…').catch((err) => console.warn('status:', err));
  if (!(await approved(agent, conversationId, call, signal))) {
    await stream.toolResult({ callId: call.callId, error: 'denied by the user' });
    await stream.step({ ...step, status: 'failed', detail: 'denied' });
    return { role: 'tool', text: JSON.stringify({ error: 'denied by the user' }) };
  }
  await stream.step({ ...step, status: 'running' });
  const output = weather(call.input);
  await stream.toolResult({ callId: call.callId, output });
  await stream.step({ ...step, status: 'done' });
  return { role: 'tool', text: JSON.stringify(output) };
}
// #endregion approval

// #region turn
/** Makes `agent` answer with the model; a test can call it on the kit's agent. */
export function llmAgent(agent: Agent): Agent {
  agent.filter(isMessage, async (ctx) => {
    const { conversationId } = ctx.event;
    const prompt = ctx.messages.map((m) => m.text ?? '').join('\n');
    let history = remember(conversationId, { role: 'user', text: prompt });
    await ctx.status('thinking…');
    const stream = await ctx.replyStream(); // aborted for you when the human stops the turn
    await stream.step({ id: 'plan', title: 'Answer, using tools when needed', status: 'running' });
    let answer = '';
    let kept = 0; // how much of the answer the history holds
    try {
      for (let round = 0; round < 3; round += 1) {
        let call: ToolCall | undefined;
        for await (const chunk of fakeModel(history, { signal: ctx.signal })) {
          if (chunk.type === 'tool-call') call = chunk;
          else {
            answer += chunk.text;
            await stream.write(chunk.text);
          }
        }
        if (call === undefined) break;
        remember(conversationId, { role: 'assistant', text: answer.slice(kept) });
        kept = answer.length;
        history = remember(conversationId, await runTool(agent, conversationId, stream, call, ctx.signal));
      }
      await stream.step({ id: 'plan', status: 'done' });
      await stream.end();
      remember(conversationId, { role: 'assistant', text: answer.slice(kept) });
      console.log(`answered in ${conversationId}: ${answer}`);
    } catch (err) {
      // Stopped: the stream is already aborted, the model call cancelled; keep what was said.
      if (!ctx.signal.aborted) throw err;
      remember(conversationId, { role: 'assistant', text: `${answer.slice(kept)} (stopped)` });
    }
  });
  agent.on('turnStopped', (e) => console.log(`${e.stoppedBy} stopped ${e.turns} turn(s)`));
  return agent;
}
// #endregion turn

// Run as a script (a test imports `llmAgent` and `turns` instead).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const agent = llmAgent(new Agent({ ...agentEnv(), turns }));
  agent.on('error', (err) => console.error('error:', err));
  agent.on('fatal', (err) => {
    console.error('stopped for good:', err);
    process.exit(1);
  });
  await agent.connect();
  console.log(`llm-agent: connected as ${agent.agentId}`);
}
