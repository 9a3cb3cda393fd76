/**
 * A group bot: joins a group with an invite code (optional), answers every
 * message in its groups by mentioning who spoke, and keeps its member list
 * current from `group.updated`.
 *
 *   ams serve --dev --port 8080 &
 *   ams dev bootstrap > .env    # AMS_BASE_URL, AMS_AGENT_ID, AMS_AGENT_TOKEN, AMS_KEY_DIR, …
 *   AMS_GROUP_INVITE=7GK2-X9PQ-MWT4 npx tsx --env-file=.env examples/group-bot.ts
 *
 * Group events (`group.updated`, `system.group_key_rotated`) come over
 * WebSocket only, so this bot runs in WebSocket mode.
 */
import { Agent, type GroupInfo } from 'agent-messaging-sdk';
import { agentEnv } from './env.js';

const agent = new Agent({ ...agentEnv() });
/** The groups the bot is in, by conversation id. */
const groups = new Map<string, GroupInfo>();

const remember = (g: GroupInfo): void => void groups.set(g.conversationId, g);

agent.on('group.updated', async (e) => {
  console.log(`group ${e.conversationId}: ${String(e.payload['change'])} ${String(e.payload['member_id'])}`);
  const ids = e.payload['member_ids'];
  if (Array.isArray(ids) && !ids.includes(agent.agentId)) groups.delete(e.conversationId);
  else remember(await agent.groups.get(e.conversationId));
});
agent.on('system.group_key_rotated', (e) => {
  console.log(`group ${e.conversationId}: key version ${String(e.payload['key_version'])}`);
});

agent.on('message.new', async (msg) => {
  const group = groups.get(msg.conversationId);
  if (group === undefined) return; // one-to-one conversations are another bot's business
  const speaker = group.members.find((m) => m.id === msg.senderId);
  if (speaker?.kind !== 'user') return; // answer people only: two bots never talk in circles
  const said = msg.text ?? `a ${msg.payload.type} message`;
  const others = group.members.filter((m) => m.id !== agent.agentId).length;
  await msg.reply(`@${msg.senderId} heard you ("${said}"); ${others} member(s) besides me read this.`);
});
agent.on('error', (err) => console.error('error:', err));
agent.on('fatal', (err) => {
  console.error('stopped for good:', err.message);
  process.exit(1);
});

await agent.connect();
const invite = process.env['AMS_GROUP_INVITE'];
if (invite !== undefined && invite !== '') remember(await agent.groups.join(invite));
for (const g of await agent.groups.list()) remember(g);
console.log(`group-bot: connected as ${agent.agentId}, in ${groups.size} group(s)`);
