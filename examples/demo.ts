/**
 * `npm start`: the whole SDK in one process, ending by itself.
 *
 * 1. starts the reference server on 127.0.0.1 (a free port, in memory);
 * 2. registers a user through the real flow (code, Turnstile, Argon2id key backup);
 * 3. creates two agents: an echo bot over WebSocket and one over webhook
 *    (Express on loopback), each generating and registering its own keys;
 * 4. the user sends them messages (one above 1 MB, delivered by webhook as a `ref`)
 *    and prints each decrypted echo as it arrives;
 * 5. prints a summary: messages, deliveries, retries.
 *
 * It imports the repository's sources (`../src/…`) so it runs without a build;
 * the runnable examples next to it import the package by name.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Agent, UserClient, type IncomingMessage, type ReceivedMessage } from '../src/index.js';
import { MemoryKeyStore } from '../src/crypto/index.js';
import { startReferenceServer, type ReferenceServer } from '../src/testing/index.js';

const BIG_MESSAGE_BYTES = 1_200_000; // above the 1 MB webhook body cap
const DEADLINE_MS = 15_000;
/** Cheap hashing so the demo starts in a second. Production keeps the defaults. */
const CHEAP_ARGON2 = { params: { m: 64, t: 1, p: 1 }, minParams: { m: 8, t: 1, p: 1 } } as const;
const CHEAP_SCRYPT = { logN: 10, blockSize: 8, parallelization: 1 } as const;

const say = (line: string): void => console.log(line);
const counts = {
  sent: 0,
  echoes: 0,
  webhookRequests: 0,
  webhookRedeliveries: 0,
  restRetries: 0,
};

/** The echo handler both bots share: short texts are echoed, big ones summarised. */
async function echo(msg: IncomingMessage): Promise<void> {
  const text = msg.text ?? JSON.stringify(msg.payload);
  const answer =
    text.length > 200 ? `got your ${(text.length / 1e6).toFixed(1)} MB message (via ${msg.transport})` : text;
  await msg.reply(`echo: ${answer}`);
}

async function registerUser(server: ReferenceServer): Promise<UserClient> {
  const user = new UserClient({ baseUrl: server.url, keyBackup: CHEAP_ARGON2 });
  user.rest.on('retry', () => void counts.restRetries++);
  const email = 'ada@example.com';
  await user.sendCode({ email, scene: 'register', turnstileToken: 'dev-pass' });
  const session = await user.register({
    email,
    code: server.control.latestCode(email, 'register') ?? '',
    accountPassword: 'demo-account-password',
    displayName: 'Ada',
    deviceLocale: 'en-GB',
    turnstileToken: 'dev-pass',
    protectionPassword: 'demo-protection-password',
  });
  say(`2. registered user ${session.userId.slice(0, 8)}… with a key backup`);
  say(`   (Argon2id m=${CHEAP_ARGON2.params.m} KiB t=1 p=1: demo-cheap; the default is m=64 MiB t=3 p=4)`);
  return user;
}

function newAgent(
  server: ReferenceServer,
  agentId: string,
  token: string,
  mode: 'websocket' | 'webhook',
): Agent {
  const agent = new Agent({ baseUrl: server.url, agentId, token, mode, keyStore: new MemoryKeyStore() });
  agent.on('message.new', echo);
  agent.on('rateLimited', () => void counts.restRetries++);
  agent.on('error', (err) => say(`   ! ${mode} bot: ${err.code}`));
  return agent;
}

/** Whether a webhook body carries an object reference instead of the envelope. */
function hasRef(body: Buffer): boolean {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { ref?: unknown };
    return typeof parsed.ref === 'object' && parsed.ref !== null;
  } catch {
    return false;
  }
}

/** Express on 127.0.0.1 with the webhook bot's middleware; logs each request's size. */
async function startWebhookApp(agent: Agent, secret: string): Promise<Server> {
  const seen = new Set<string>();
  const app = express();
  app.post(
    '/webhook',
    express.raw({ type: () => true, limit: '2mb' }), // the adapter takes the raw bytes from req.body
    (req, _res, next) => {
      counts.webhookRequests++;
      const id = req.get('x-service-delivery-id') ?? '';
      if (seen.has(id)) counts.webhookRedeliveries++;
      seen.add(id);
      if (Buffer.isBuffer(req.body) && hasRef(req.body)) {
        say(
          `   webhook body of ${req.body.length} bytes with wire_envelope null and a ref: fetched from /r2/…`,
        );
      }
      next();
    },
    agent.webhook({ secret }).expressMiddleware(),
  );
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function printEcho(names: ReadonlyMap<string, string>, m: ReceivedMessage): void {
  const name = names.get(m.senderId);
  if (name === undefined) return;
  counts.echoes++;
  const text = (m.payload as { text?: unknown }).text;
  say(`   ← ${name}: ${typeof text === 'string' ? text : JSON.stringify(m.payload)}`);
}

interface Bots {
  readonly ws: Agent;
  readonly hook: Agent;
  readonly app: Server;
  /** Agent id → bot name. */
  readonly names: ReadonlyMap<string, string>;
}

/** Creates both agents, the webhook app, and connects them. */
async function startBots(server: ReferenceServer, user: UserClient): Promise<Bots> {
  const wsInfo = await user.createAgent({ name: 'echo-ws' });
  const hookInfo = await user.createAgent({ name: 'echo-webhook' });
  const ws = newAgent(server, wsInfo.agentId, wsInfo.token, 'websocket');
  const hook = newAgent(server, hookInfo.agentId, hookInfo.token, 'webhook');
  const secret = randomBytes(32).toString('base64');
  const app = await startWebhookApp(hook, secret);
  const hookUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/webhook`;
  await server.control.setWebhook(hookInfo.agentId, { url: hookUrl, secret });
  await Promise.all([ws.connect(), hook.connect()]);
  say(`3. echo-ws connected over WebSocket; echo-webhook listening on ${hookUrl}`);
  say('   (each bot generated its X25519 + Ed25519 keys and registered them)');
  const names = new Map([
    [wsInfo.agentId, 'echo-ws'],
    [hookInfo.agentId, 'echo-webhook'],
  ]);
  return { ws, hook, app, names };
}

/** The user adds both bots, sends four messages and waits for the four echoes. */
async function converse(user: UserClient, bots: Bots): Promise<void> {
  user.on('message', (m) => printEcho(bots.names, m));
  await user.connect();
  const [toWs, toHook] = await Promise.all(
    [...bots.names.keys()].map(async (id) => (await user.addAgent(id)).conversationId),
  );
  say('4. the user sends, sealed for each bot; echoes are opened and verified as they arrive');
  const sends: [string, string, string][] = [
    [toWs!, 'echo-ws', 'hello over WebSocket'],
    [toHook!, 'echo-webhook', 'hello over webhook'],
    [toWs!, 'echo-ws', 'end-to-end: the server only sees ciphertext'],
    [toHook!, 'echo-webhook', 'x'.repeat(BIG_MESSAGE_BYTES)],
  ];
  for (const [conversationId, name, text] of sends) {
    await user.send(conversationId, { type: 'text', text });
    counts.sent++;
    say(`   → ${name}: ${text.length > 200 ? `${(text.length / 1e6).toFixed(1)} MB of text` : `"${text}"`}`);
  }
  await waitFor(() => counts.echoes >= sends.length, DEADLINE_MS);
}

async function main(): Promise<void> {
  const server = await startReferenceServer({ passwordHashing: CHEAP_SCRYPT, agentTokenBcryptCost: 4 });
  say(`1. reference server on ${server.url} (in memory)`);
  const user = await registerUser(server);
  const bots = await startBots(server, user);
  await converse(user, bots);

  const ws = bots.ws.stats();
  const hook = bots.hook.stats();
  await Promise.all([bots.ws.close({ timeoutMs: 2_000 }), bots.hook.close({ timeoutMs: 2_000 })]);
  await user.disconnect();
  await new Promise<void>((resolve) => bots.app.close(() => resolve()));
  await server.close();
  say(
    `5. summary: ${counts.sent} messages sent, ${counts.echoes} echoes received; ` +
      `deliveries ${ws.received} by WebSocket + ${hook.received} by webhook (${counts.webhookRequests} requests); ` +
      `retries: ${counts.webhookRedeliveries} webhook, ${counts.restRetries} REST`,
  );
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('the demo timed out waiting for the echoes');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

main().then(
  // Exit once stdout is flushed: the shared HTTP keep-alive pool would otherwise hold the process a while.
  () => process.stdout.write('', () => process.exit(0)),
  (err: unknown) => {
    console.error('demo failed:', err instanceof Error ? `${err.name}: ${err.message}` : 'unknown error');
    process.exit(1);
  },
);
