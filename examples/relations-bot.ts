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
 * On `relation.established` the bot also sends an artifact (a confirmation,
 * sealed end to end) and awaits the answer: answer it from the human's side
 * (`ams dev chat`, or a `UserClient` with `client.on('artifact', (a) => a.approve())`).
 * See docs/artifacts.md.
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
  // An artifact round trip: ask, then await the answer without holding up this handler.
  const artifact = await agent.artifacts.send(e.conversationId, {
    content: { kind: 'confirm', title: 'Shall I send you a daily summary?' },
  });
  artifact.response({ timeoutMs: 10 * 60_000 }).then(
    (outcome) =>
      console.log(
        `artifact ${artifact.artifactId}: ${outcome.status === 'denied' ? `denied (${outcome.reason}, by ${outcome.by})` : outcome.status}`,
      ),
    (err: unknown) => console.log(`artifact ${artifact.artifactId}: no answer (${(err as Error).name})`),
  );
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
