/**
 * A bot that publishes its capability manifest on start, over WebSocket.
 *
 * - On start it reads the manifest state, and proposes its manifest unless
 *   the accepted (or pending) one is already the same; the owner accepts or
 *   rejects it (`client.manifests.accept()` / `reject()` in the owner's app).
 * - `agent.capability_changed`: the owner decided; the bot says so.
 * - A text message `/profile` asks the user for a `profile.read` grant and,
 *   once granted, greets them by name; `grant.revoked` forgets the grant.
 *
 *   ams serve --dev --port 8080 &
 *   ams dev bootstrap > .env
 *   npx tsx --env-file=.env examples/manifest-bot.ts
 */
import { Agent, isServiceError, type CapabilityManifest } from 'agent-messaging-sdk';
import { canonicalJson } from 'agent-messaging-sdk/protocol';
import { agentEnv, closeOnSignal } from './env.js';

const MANIFEST: CapabilityManifest = {
  name: 'Manifest bot',
  description: 'Greets you by name when you allow it to read your profile.',
  version: '1.0.0',
  tools: [
    {
      name: 'greet',
      description: 'Greets the user by display name.',
      input_schema: { type: 'object', properties: { formal: { type: 'boolean' } } },
      timeout_ms: 5_000,
    },
  ],
  data_scopes: ['profile.read'],
};

const agent = new Agent({ ...agentEnv() });
const grants = new Map<string, string>(); // conversation id → grant id

/** Proposes MANIFEST unless the service already has it (accepted or pending). */
async function publishManifest(): Promise<void> {
  const revision = await agent.manifest.updateWithRetry((state) => {
    const known = [state.current?.manifest, state.pending?.manifest].filter((m) => m !== undefined);
    if (known.some((m) => canonicalJson(m) === canonicalJson(MANIFEST))) throw new Error('unchanged');
    return MANIFEST;
  });
  console.log(
    `manifest version ${revision.version} proposed (${revision.size_bytes} bytes); waiting for the owner`,
  );
}

agent.on('warning', (w) => console.warn(`warning ${w.code}: ${w.message}`));
agent.on('agent.capability_changed', (e) => {
  console.log(`the owner ${String(e.payload['decision'])} manifest version ${String(e.payload['version'])}`);
});
agent.on('grant.revoked', (e) => {
  for (const [conversation, grant] of grants) if (grant === e.payload.grant_id) grants.delete(conversation);
  console.log(`grant ${e.payload.grant_id} revoked`);
});
agent.command('profile', async (ctx) => {
  const conversationId = ctx.event.conversationId;
  const asked = await agent.grants.request({
    conversationId,
    scope: 'profile.read',
    windowSeconds: 3600,
    reason: 'to greet you by name for the next hour',
  });
  await agent.send(conversationId, 'I asked to read your profile; please decide in your app.');
  const decided = await agent.grants.awaitDecision(asked.grantId);
  if (decided.status !== 'granted') {
    await agent.send(conversationId, 'No problem, I will not read it.');
    return;
  }
  grants.set(conversationId, asked.grantId);
  const read = await agent.grants.read(asked.grantId);
  if (read.scope === 'profile.read') await agent.send(conversationId, `Hello, ${read.data.display_name}!`);
});
agent.on('error', (err) => console.error(`error ${err.code}: ${err.message}`));
agent.on('fatal', (err) => console.error(`fatal ${err.code}: ${err.message}`));

await agent.connect();
console.log(`connected as ${agent.agentId}`);
try {
  await publishManifest();
} catch (err) {
  if (err instanceof Error && err.message === 'unchanged') console.log('manifest unchanged');
  else if (isServiceError(err)) console.error(`manifest not published: ${err.code}`);
  else throw err;
}
closeOnSignal(() => agent.close());
