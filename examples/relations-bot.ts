/**
 * A bot that keeps track of its relations and answers artifact responses,
 * over WebSocket.
 *
 * - `relation.established`: a user added the bot; it greets them.
 * - `relation.suspended` / `relation.restored`: the platform paused or resumed
 *   the conversation; the bot stops and resumes sending there.
 * - `relation.revoked`: the user removed the bot; it forgets the conversation.
 * - `artifact_response`: a user approved or denied an artifact; denials carry a reason.
 *
 *   ams serve --dev --port 8080 &
 *   ams dev bootstrap > .env
 *   npx tsx --env-file=.env examples/relations-bot.ts
 *
 * The reference server has no artifact feature (the service interface shows
 * only the `artifact_response` event and the artifact error codes, no
 * endpoint that sends or answers an artifact). On `ams serve --dev` the
 * control API stands in for the user's answer: it seals the payload from the
 * system sender and delivers it like any other event.
 *
 *   curl -X POST "$AMS_BASE_URL/_control/agents/$AMS_AGENT_ID/events" \
 *     -H 'content-type: application/json' \
 *     -d '{"type":"artifact_response","conversation_id":"<id from relation.established>",
 *          "payload":{"status":"denied","reason":"user_rejected"}}'
 */
import { Agent } from 'agent-messaging-sdk';
import { agentEnv } from './env.js';

type RelationState = 'active' | 'suspended';
const relations = new Map<string, RelationState>(); // conversation id → state

const agent = new Agent({ ...agentEnv() });

agent.on('relation.established', async (e) => {
  relations.set(e.conversationId, 'active');
  console.log(`relation.established: user ${e.userId} in ${e.conversationId}`);
  await agent.send(e.conversationId, 'Hello! I will tell you when your artifacts are answered.');
});
agent.on('relation.suspended', (e) => {
  relations.set(e.conversationId, 'suspended');
  console.log(`relation.suspended: ${e.conversationId}`);
});
agent.on('relation.restored', (e) => {
  relations.set(e.conversationId, 'active');
  console.log(`relation.restored: ${e.conversationId}`);
});
agent.on('relation.revoked', (e) => {
  relations.delete(e.conversationId);
  console.log(`relation.revoked: user ${e.userId}; ${relations.size} relation(s) left`);
});

agent.on('artifact_response', async (e) => {
  const outcome = e.status === 'denied' ? `denied (${e.deniedReason ?? 'no reason'})` : e.status;
  console.log(`artifact_response: ${outcome} in ${e.conversationId}`);
  if (relations.get(e.conversationId) === 'active')
    await agent.send(e.conversationId, `Artifact ${outcome}.`);
});

agent.on('message.new', async (msg) => {
  if (relations.get(msg.conversationId) === 'suspended') return;
  await msg.reply(`I track ${relations.size} relation(s). You said: ${msg.text ?? '(not text)'}`);
});
agent.on('error', (err) => console.error('error:', err)); // err.cause: the handler's own error
agent.on('fatal', (err) => {
  console.error('stopped for good:', err.message);
  process.exit(1);
});

await agent.connect();
console.log(`relations-bot: connected as ${agent.agentId}`);
// Ctrl-C / SIGTERM: running handlers finish and are acknowledged, then the process exits (shutdownSignals).
