/**
 * The echo bot as copies sharing delivery (docs/production.md): run it twice
 * (or as two replicas); each conversation goes to one copy, every message is
 * answered once, and a copy that stops (SIGTERM, deploy) hands its
 * conversations to the other.
 *
 *   ams serve --dev --port 8080 &
 *   ams dev bootstrap > .env    # AMS_BASE_URL, AMS_AGENT_ID, AMS_AGENT_TOKEN, AMS_KEY_DIR, …
 *   redis-server --port 6379 --daemonize yes
 *   REDIS_URL=redis://127.0.0.1:6379 npx tsx --env-file=.env examples/copies-bot.ts &   # copy 1
 *   REDIS_URL=redis://127.0.0.1:6379 npx tsx --env-file=.env examples/copies-bot.ts &   # copy 2
 */
import { Redis } from 'ioredis';
import { Agent } from 'agent-messaging-sdk';
import { MESSAGE_DEDUP_MEMORY_MS } from 'agent-messaging-sdk/crypto';
import { createRedisDedupStore } from 'agent-messaging-sdk/webhook/redis';
import { agentEnv, requireEnv } from './env.js';

// The Redis client is the application's: the Agent never closes it (close it after the agent).
const redis = new Redis(requireEnv('REDIS_URL'));
const agent = new Agent({
  ...agentEnv(), // every copy loads the same keys ($AMS_KEY_DIR/<agent id>, or a secret store)
  copies: 'shared', // several live sockets, one per copy; each conversation goes to one of them
  dedupStore: createRedisDedupStore({ client: redis, windowMs: MESSAGE_DEDUP_MEMORY_MS }),
});

agent.on('message.new', async (msg) => {
  await msg.reply(`echo: ${msg.text ?? JSON.stringify(msg.payload)}`);
});
agent.on('error', (err) => console.error('error:', err));
agent.on('fatal', (err) => {
  console.error('stopped for good:', err.message);
  redis.disconnect();
  process.exit(1);
});
agent.on('closed', () => redis.disconnect());

await agent.connect();
console.log(`copies-bot: connected as ${agent.agentId} (pid ${process.pid})`);
// SIGTERM drains: no new work for this copy, running handlers finish and are acknowledged, then it exits.
