/**
 * A bot that streams its reply token by token, as an LLM agent does: the
 * tokens come from a fake model (an async generator, no network), each
 * becomes an encrypted delta (tiny ones coalesced), and the user's app sees
 * the text grow, then gets the full text verified against the agent's
 * signature. A `/slow` message shows the writer API with an abort.
 *
 *   ams serve --dev --port 8080 &
 *   ams dev bootstrap > .env
 *   npx tsx --env-file=.env examples/streaming-bot.ts
 */
import { Agent, StreamError } from 'agent-messaging-sdk';
import { agentEnv } from './env.js';

/** A stand-in for an LLM SDK's token stream. */
async function* fakeModel(prompt: string): AsyncGenerator<string> {
  const answer = `You asked: "${prompt}". Here is a streamed answer, one token at a time.`;
  for (const token of answer.split(/(?<= )/)) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    yield token;
  }
}

const agent = new Agent({ ...agentEnv() });

agent.command('slow', async (ctx) => {
  const writer = await ctx.replyStream();
  await writer.write('Working on it');
  for (let i = 0; i < 3; i += 1) await writer.write('.');
  await writer.abort('gave up: no tool available');
  console.log(`aborted stream ${writer.streamId}`);
});

agent.on('message.new', async (msg) => {
  if (msg.text?.startsWith('/') === true) return;
  try {
    const summary = await agent.streamFrom(msg.conversationId, fakeModel(msg.text ?? ''));
    console.log(`streamed ${summary.text.length} characters in ${summary.deltas} deltas`);
  } catch (err) {
    // Streams are never retried: fall back to an ordinary message if the reply still matters.
    if (err instanceof StreamError && err.reason === 'client_offline') await msg.reply('(answer ready)');
    else throw err;
  }
});
agent.on('error', (err) => console.error('error:', err));
agent.on('fatal', (err) => {
  console.error('stopped for good:', err.message);
  process.exit(1);
});

await agent.connect();
console.log(`streaming-bot: connected as ${agent.agentId}`);
