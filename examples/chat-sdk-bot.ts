/**
 * A Chat SDK bot (`chat` 4.x) on the service, end to end encrypted, through
 * `agent-messaging-sdk/chat` (docs/chat-sdk.md). The bot's code is ordinary
 * Chat SDK code: `onDirectMessage`, `thread.post()` with text, a stream and a
 * card, `onAction` for the card's buttons. No network beyond the service: the
 * "model" is an async generator.
 *
 *   npm install chat @chat-adapter/state-memory
 *   ams serve --dev --port 8080 &
 *   ams dev bootstrap > .env
 *   npx tsx --env-file=.env examples/chat-sdk-bot.ts
 *
 * Then write "hello", "stream" (a streamed answer with a plan step) or
 * "deploy" (a card: pick Deploy or Cancel).
 */
// #region setup
import { Actions, Button, Card, CardText, Chat, type StreamChunk } from 'chat';
import { createMemoryState } from '@chat-adapter/state-memory';
import { Agent } from 'agent-messaging-sdk';
import { createAmsAdapter } from 'agent-messaging-sdk/chat';
import { agentEnv, closeOnSignal } from './env.js';

// The Agent is the transport; given to the adapter, it stays yours (connect and close it yourself).
const agent = new Agent({ ...agentEnv(), shutdownSignals: false });
const bot = new Chat({
  userName: 'helper',
  adapters: { ams: createAmsAdapter({ agent }) },
  state: createMemoryState(),
  logger: 'warn',
});
// #endregion setup

// #region handlers
bot.onDirectMessage(async (thread, message) => {
  if (message.text === 'stream') {
    const sent = await thread.post(fakeModel(message.text));
    console.log(`streamed ${sent.text.length} characters`);
  } else if (message.text === 'deploy') {
    await thread.post(
      Card({
        title: 'Deploy 1.4.2?',
        children: [
          CardText('Production, 3 regions.'),
          Actions([
            Button({ id: 'deploy', label: 'Deploy', style: 'primary', value: '1.4.2' }),
            Button({ id: 'cancel', label: 'Cancel', style: 'danger' }),
          ]),
        ],
      }),
    );
  } else {
    await thread.post(`echo: ${message.text}`);
  }
});

bot.onAction(['deploy', 'cancel'], async (event) => {
  const answer = event.actionId === 'deploy' ? `deploying ${event.value ?? '?'}` : 'cancelled';
  await event.thread?.post(answer);
  console.log(`action ${event.actionId}`);
});
// #endregion handlers

agent.on('error', (err) => console.error('error:', err));
agent.on('fatal', (err) => {
  console.error('stopped for good:', err.message);
  process.exit(1);
});

// #region start
await bot.initialize(); // the adapter starts passing the Agent's events to the bot
await agent.connect();
closeOnSignal(async () => {
  await bot.shutdown();
  await agent.close();
});
// #endregion start
console.log(`chat-sdk-bot: connected as ${agent.agentId}`);

/** A stand-in for a model's stream: a plan step, then text, then the step done. */
async function* fakeModel(prompt: string): AsyncGenerator<string | StreamChunk> {
  yield { type: 'task_update', id: 'think', title: 'Thinking', status: 'in_progress' };
  for (const token of `You asked "${prompt}". Here is a streamed answer.`.split(/(?<= )/)) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    yield token;
  }
  yield { type: 'task_update', id: 'think', title: 'Thinking', status: 'complete' };
}
