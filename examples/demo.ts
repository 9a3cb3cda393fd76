/**
 * `npm start`: the whole SDK in one process, ending by itself.
 *
 * 1. starts the reference server on 127.0.0.1 (a free port, in memory);
 * 2. registers a user through the real flow (code, Turnstile, Argon2id key backup);
 * 3. creates two agents: an echo bot over WebSocket and one over webhook
 *    (Express on loopback), each generating and registering its own keys;
 * 4. the user sends them messages (one above 1 MB, delivered by webhook as a `ref`)
 *    and prints each decrypted echo as it arrives. A flaky proxy in front of the
 *    webhook bot answers 503 to the first attempt of one message although the bot
 *    handled it; the server retries and the bot skips the copy (de-duplication);
 * 5. prints a summary: messages, deliveries and retries, read from the server's
 *    delivery logs.
 *
 * It imports the repository's sources (`../packages/sdk/src/…`) so it runs without a build;
 * the runnable examples next to it import the package by name.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import {
  Agent,
  UserClient,
  type AgentWebhook,
  type IncomingMessage,
  type ReceivedMessage,
} from '../packages/sdk/src/index.js';
import { WEBHOOK_RETRY_SCHEDULE_MS } from '../packages/sdk/src/protocol.js';
import { MemoryKeyStore } from '../packages/sdk/src/crypto/index.js';
import { startReferenceServer, type ReferenceServer } from '../packages/dev/src/testing/index.js';

const BIG_MESSAGE_BYTES = 1_200_000; // above the 1 MB webhook body cap
const DEADLINE_MS = 15_000;
/** Cheap hashing so the demo starts in a second. Production keeps the defaults. */
const CHEAP_ARGON2 = { params: { m: 64, t: 1, p: 1 }, minParams: { m: 8, t: 1, p: 1 } } as const;
const CHEAP_SCRYPT = { logN: 10, blockSize: 8, parallelization: 1 } as const;

const say = (line: string): void => console.log(line);
const short = (id: string): string => `${id.slice(0, 8)}…`;
/** A delivery id's random tail (UUID v7 ids begin with the time, so their heads look alike). */
const tail = (id: string): string => `…${id.slice(-8)}`;
const counts = { sent: 0, echoes: 0, webhookRequests: 0, restRetries: 0 };
/** Message id → how many times a bot's handler ran for it (must end at 1 each). */
const handled = new Map<string, number>();

/** The echo handler both bots share: short texts are echoed, big ones summarised. */
async function echo(msg: IncomingMessage): Promise<void> {
  handled.set(msg.messageId, (handled.get(msg.messageId) ?? 0) + 1);
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
  say(`2. registered user ${short(session.userId)} with a key backup`);
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

/** The cleartext part of a webhook body: its event type, and whether it carries a `ref`. */
function peek(body: Buffer): { type: string; ref: boolean } {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { type?: unknown; ref?: unknown };
    const type = typeof parsed.type === 'string' ? parsed.type : '';
    return { type, ref: typeof parsed.ref === 'object' && parsed.ref !== null };
  } catch {
    return { type: '', ref: false };
  }
}

/** A step of the retry schedule in words. */
function duration(ms: number): string {
  if (ms === 0) return 'at once';
  if (ms < 60_000) return `${ms / 1000} s`;
  return ms < 3_600_000 ? `${ms / 60_000} min` : `${ms / 3_600_000} h`;
}

/** Counts webhook requests and points out a body that carries a `ref`. */
const noteRequest: express.RequestHandler = (req, _res, next) => {
  counts.webhookRequests++;
  const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (peek(body).ref)
    say(`   webhook body of ${body.length} bytes with wire_envelope null and a ref: fetched from /r2/…`);
  next();
};

/**
 * A flaky deployment in front of the webhook bot. The first attempt of the
 * first `message.new` reaches the bot, which handles it (the echo goes out),
 * but its 200 is lost and the service gets a 503, as from a proxy that timed
 * out. The service retries on its schedule; the bot knows the delivery id,
 * answers 200 `duplicate` and does not run its handler again.
 */
function flakyProxy(agent: Agent, hook: AgentWebhook): express.RequestHandler {
  const middleware = hook.expressMiddleware();
  let failed: { deliveryId: string; atMs: number } | undefined;
  agent.on('duplicate', (d) => {
    const after = failed?.deliveryId === d.deliveryId ? ` ${Date.now() - failed.atMs} ms after the 503` : '';
    say(`   ↻ delivery ${tail(d.deliveryId)} came again${after}; the bot answered 200 duplicate`);
    say(`     (same ${d.by.replace('_', ' ')}: its handler did not run a second time)`);
  });
  return (req, res, next) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (failed !== undefined || peek(body).type !== 'message.new') return void middleware(req, res, next);
    const id = req.get('x-service-delivery-id') ?? '';
    failed = { deliveryId: id, atMs: Date.now() };
    hook.receiver.handle({ body, headers: req.headers }).then((answer) => {
      failed = { deliveryId: id, atMs: Date.now() };
      say(
        `   ✗ flaky proxy: the bot handled delivery ${tail(id)} and answered ${answer.status}, but the service got 503`,
      );
      say(
        `     a 5xx is retried on the service's schedule (${WEBHOOK_RETRY_SCHEDULE_MS.map(duration).join(', ')});`,
      );
      say('     the 1st retry is immediate, so the demo runs on real time with no clock tricks');
      res.status(503).json({ error: { code: 'UPSTREAM_UNAVAILABLE', message: 'flaky proxy (demo)' } });
    }, next);
  };
}

/** Express on 127.0.0.1: the raw body, the flaky proxy, the webhook bot's middleware. */
async function startWebhookApp(agent: Agent, secret: string): Promise<Server> {
  const app = express();
  app.post(
    '/webhook',
    express.raw({ type: () => true, limit: '2mb' }), // the adapter takes the raw bytes from req.body
    noteRequest,
    flakyProxy(agent, agent.webhook({ secret })),
  );
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function printEcho(names: ReadonlyMap<string, string>, m: ReceivedMessage): void {
  const name = names.get(m.senderId);
  if (name === undefined || m.payload['type'] === 'artifact') return; // artifacts: see artifactRoundTrip
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

/** An artifact round trip: echo-ws asks the user to confirm; the user's client approves; the bot awaits the answer. */
async function artifactRoundTrip(user: UserClient, bots: Bots): Promise<void> {
  const wsId = [...bots.names].find(([, name]) => name === 'echo-ws')![0];
  const conversation = (await user.conversations()).find((c) => c.agentId === wsId)!;
  user.once('artifact', (a) => {
    const title = a.content.title;
    say(
      `   ← echo-ws asks (artifact, ${a.content.kind}, revision ${a.revision}): "${title}"; the user approves`,
    );
    void a.approve();
  });
  const artifact = await bots.ws.artifacts.send(conversation.conversationId, {
    content: { kind: 'confirm', title: 'Archive this conversation?' },
  });
  const outcome = await artifact.response({ timeoutMs: DEADLINE_MS });
  say(
    `   → echo-ws: artifact_response ${outcome.status} (sealed end to end; the server saw ids and revision only)`,
  );
}

/** A streamed reply: echo-ws streams its answer token by token; the user's client assembles and verifies it. */
async function streamedReply(user: UserClient, bots: Bots): Promise<void> {
  const wsId = [...bots.names].find(([, name]) => name === 'echo-ws')![0];
  const conversation = (await user.conversations()).find((c) => c.agentId === wsId)!;
  let deltas = 0;
  const onDelta = (): void => void deltas++;
  user.on('streamDelta', onDelta);
  const ended = new Promise<string>((resolve) => user.once('streamEnd', (e) => resolve(e.text)));
  async function* tokens(): AsyncGenerator<string> {
    for (const word of 'streamed, sealed once, then one small AEAD frame per delta'.split(' ')) {
      yield `${word} `;
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
  }
  const summary = await bots.ws.streamFrom(conversation.conversationId, tokens());
  const text = await ended;
  user.off('streamDelta', onDelta);
  say(
    `   ← echo-ws streams: "${text.trim()}" (${summary.deltas} deltas, transcript signature verified by the user)`,
  );
}

/** Deliveries and redeliveries as the server logged them (`GET /agents/:id/delivery-logs`). */
async function serverFigures(server: ReferenceServer, bots: Bots) {
  await server.control.deliveryIdle(); // the last webhook answer is logged once it is back
  const [wsLogs, hookLogs] = await Promise.all([
    bots.ws.api.deliveryLogs(50),
    bots.hook.api.deliveryLogs(50),
  ]);
  const delivered = (logs: typeof wsLogs, type: string): number =>
    logs.filter((e) => e.final_status === 'delivered' && e.event_type === type).length;
  return {
    ws: delivered(wsLogs, 'message.new'),
    hook: delivered(hookLogs, 'message.new'),
    wsRelations: delivered(wsLogs, 'relation.established'),
    hookRelations: delivered(hookLogs, 'relation.established'),
    retries: hookLogs.reduce((sum, e) => sum + e.attempt_count - 1, 0),
  };
}

/** "each message handled once", or what went wrong. */
function handledText(): string {
  const twice = [...handled.values()].filter((n) => n > 1).length;
  if (twice > 0) return `${twice} message(s) handled more than once`;
  return `each of the ${handled.size} messages handled exactly once`;
}

async function main(): Promise<void> {
  const server = await startReferenceServer({ passwordHashing: CHEAP_SCRYPT, agentTokenBcryptCost: 4 });
  say(`1. reference server on ${server.url} (in memory)`);
  const user = await registerUser(server);
  const bots = await startBots(server, user);
  await converse(user, bots);
  await artifactRoundTrip(user, bots);
  await streamedReply(user, bots);

  const figures = await serverFigures(server, bots);
  const duplicates = bots.hook.stats().duplicates;
  await Promise.all([bots.ws.close({ timeoutMs: 2_000 }), bots.hook.close({ timeoutMs: 2_000 })]);
  await user.disconnect();
  await new Promise<void>((resolve) => bots.app.close(() => resolve()));
  await server.close();
  say(`5. summary: ${counts.sent} messages sent, ${counts.echoes} echoes received; ${handledText()}`);
  say(
    `   messages delivered: ${figures.ws} by WebSocket + ${figures.hook} by webhook, plus ` +
      `${figures.wsRelations + figures.hookRelations} relation.established (${counts.webhookRequests} webhook requests); ` +
      `retries: ${figures.retries} webhook, ${counts.restRetries} REST`,
  );
  say(
    `   (deliveries and retries from the server's delivery logs; the webhook bot skipped ${duplicates} duplicate${duplicates === 1 ? '' : 's'})`,
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
