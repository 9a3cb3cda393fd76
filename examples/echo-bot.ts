/**
 * An echo bot over WebSocket.
 *
 *   ams serve --dev --port 8080 &
 *   ams dev bootstrap > .env    # AMS_BASE_URL, AMS_AGENT_ID, AMS_AGENT_TOKEN, AMS_KEY_DIR, …
 *   npx tsx --env-file=.env examples/echo-bot.ts
 */
import { Agent } from 'agent-messaging-sdk';
import { agentEnv } from './env.js';

const agent = new Agent({ ...agentEnv() });

agent.on('message.new', async (msg) => {
  await msg.reply(`echo: ${msg.text ?? JSON.stringify(msg.payload)}`);
});
agent.on('error', (err) => console.error('error:', err)); // err.cause: the handler's own error
agent.on('fatal', (err) => {
  console.error('stopped for good:', err.message);
  process.exit(1);
});

await agent.connect();
console.log(`echo-bot: connected as ${agent.agentId}`);
// Ctrl-C / SIGTERM: running handlers finish and are acknowledged, then the process exits (shutdownSignals).
