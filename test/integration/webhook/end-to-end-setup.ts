/**
 * One agent in webhook mode on the reference server, receiving through one
 * framework adapter on 127.0.0.1: registration by the owner
 * (`PUT /agents/:id/webhook`), the receiver built with the issued secret, the
 * server's virtual clock, `open` from `./crypto` with sender keys looked up
 * over REST, and a `ref` fetcher against the real `/r2` route.
 *
 * The handler's behaviour is steered per test (`failNext`, `gate`), and every
 * answer the receiver gives is recorded.
 */
import { fromBase64 } from '../../../packages/sdk/src/core/encoding.js';
import { ENVELOPE_REF_MAX_BYTES, open, type OpenedEnvelope } from '../../../packages/sdk/src/crypto/index.js';
import { SYSTEM_SENDER_ID, type ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { getHeader } from '../../../packages/sdk/src/webhook/headers.js';
import {
  createRefFetcher,
  createWebhookReceiver,
  type WebhookEvent,
  type WebhookReceiver,
  type WebhookReceiverEvent,
  type WebhookRequest,
  type WebhookResponse,
} from '../../../packages/sdk/src/webhook/index.js';
import {
  addAgent,
  createTestAgent,
  createTestUser,
  sealAs,
  type TestAgent,
  type TestUser,
} from '../../helpers/server-agents.js';
import { call } from '../../helpers/server-http.js';
import { FRAMEWORKS, ROUTES, type Running } from './servers.js';

/** One answer of the receiver, with the delivery it was for. */
export interface Answer {
  readonly deliveryId: string;
  readonly status: number;
  readonly code: string | undefined;
  readonly outcome: string | undefined;
  readonly retryAfter: string | undefined;
}

/** A running agent-side receiver and what it saw. */
export interface EndToEnd {
  readonly user: TestUser;
  readonly agent: TestAgent;
  readonly conversationId: string;
  /** Handler runs that completed, with the opened envelope. */
  readonly handled: WebhookEvent<OpenedEnvelope>[];
  /** Handler invocations, including those that threw or are still running. */
  readonly started: string[];
  readonly events: WebhookReceiverEvent[];
  readonly answers: Answer[];
  /** URLs the ref fetcher requested. */
  readonly fetched: string[];
  /** The handler throws for this many more invocations. */
  failNext: number;
  /** When set, the handler waits for it before returning. */
  gate: Promise<void> | undefined;
  /** The user sends a sealed message (signed with `signer`'s keys, default the user's own). */
  send(payload: Record<string, unknown>, signer?: TestUser['keys']): Promise<void>;
  close(): Promise<void>;
}

function answerOf(deliveryId: string, r: WebhookResponse): Answer {
  const body = JSON.parse(r.body) as { data?: { status?: string }; error?: { code?: string } };
  return {
    deliveryId,
    status: r.status,
    code: body.error?.code,
    outcome: body.data?.status,
    retryAfter: r.headers['retry-after'],
  };
}

/** A receiver whose implementation is bound once the webhook secret is known. */
function lateReceiver(): { receiver: WebhookReceiver; bind(target: WebhookReceiver): void } {
  let target: WebhookReceiver | undefined;
  const get = (): WebhookReceiver => {
    if (target === undefined) throw new Error('receiver not bound yet');
    return target;
  };
  return {
    receiver: {
      handle: (request) => get().handle(request),
      respondToError: (error) => get().respondToError(error),
      drain: () => get().drain(),
      get verifier() {
        return get().verifier;
      },
    },
    bind: (t) => void (target = t),
  };
}

/** The signing key of a sender, fetched the way an agent would. */
async function senderKey(server: ReferenceServer, agent: TestAgent, senderId: string): Promise<Uint8Array> {
  const res =
    senderId === SYSTEM_SENDER_ID
      ? await call(server, 'GET', '/system/keys')
      : await call(server, 'GET', `/keys/${encodeURIComponent(senderId)}`, { token: agent.token });
  const key = fromBase64(String(res.data['signing_public_key']));
  if (res.status !== 200 || key === undefined) throw new Error(`no signing key for ${senderId}: ${res.text}`);
  return key;
}

/** Starts `framework` for a fresh agent of a fresh user and registers it as the agent's webhook. */
export async function startEndToEnd(server: ReferenceServer, framework: string): Promise<EndToEnd> {
  const user = await createTestUser(server);
  const agent = await createTestAgent(server, user);
  const late = lateReceiver();
  const running: Running = await FRAMEWORKS[framework]!(late.receiver);
  const reg = await call(server, 'PUT', `/agents/${agent.agentId}/webhook`, {
    token: user.accessToken,
    json: { url: running.url + ROUTES.webhook },
  });
  if (reg.status !== 200) throw new Error(`registration failed: ${reg.text}`);
  const state: EndToEnd = {
    user,
    agent,
    conversationId: '',
    handled: [],
    started: [],
    events: [],
    answers: [],
    fetched: [],
    failNext: 0,
    gate: undefined,
    async send(payload, signer = user.keys) {
      const wire = sealAs(
        { id: user.userId, keys: signer },
        [{ id: agent.agentId, keys: agent.keys }],
        state.conversationId,
        payload,
      );
      // Virtual time runs for minutes here: a fresh access token for the same device each time.
      const { accessToken } = await server.control.accessToken(user.userId, { deviceId: user.deviceId });
      const res = await call(server, 'POST', `/conversations/${state.conversationId}/messages`, {
        token: accessToken,
        json: { wire_envelope: wire },
      });
      if (res.status >= 300) throw new Error(`send failed: ${res.text}`);
    },
    close: () => running.close(),
  };
  const receiver = createWebhookReceiver<OpenedEnvelope>({
    secret: String(reg.data['secret']),
    clock: server.clock,
    open: async (envelope, delivery) => {
      const sender = delivery.metadata.sender_id;
      const key = await senderKey(server, agent, sender);
      return open(envelope, {
        recipientId: agent.agentId,
        keys: agent.keys,
        senderKey: (id) => (id === sender ? key : undefined),
        ...(delivery.ref === undefined ? {} : { maxEnvelopeBytes: ENVELOPE_REF_MAX_BYTES }),
      });
    },
    fetchRef: createRefFetcher({
      baseUrl: server.url,
      agentToken: agent.token,
      clock: server.clock,
      fetch: (url, init) => {
        state.fetched.push(url);
        return fetch(url, init);
      },
    }),
    handler: async (event) => {
      state.started.push(event.deliveryId);
      if (state.failNext > 0) {
        state.failNext--;
        throw new Error('receiver not ready yet');
      }
      if (state.gate !== undefined) await state.gate;
      state.handled.push(event);
    },
    onEvent: (e) => state.events.push(e),
  });
  late.bind({
    verifier: receiver.verifier,
    respondToError: (error) => receiver.respondToError(error),
    drain: () => receiver.drain(),
    handle: async (request: WebhookRequest) => {
      const response = await receiver.handle(request);
      state.answers.push(answerOf(getHeader(request.headers, 'x-service-delivery-id') ?? '', response));
      return response;
    },
  });
  (state as { conversationId: string }).conversationId = await addAgent(server, user, agent.agentId);
  await server.control.deliveryIdle();
  return state;
}

/** Resolves once `check` holds, polling on real time (for work the test does not drive itself). */
export async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
