/**
 * createAgentApi against an undici MockAgent (network disabled): request
 * shapes, camelCase results, and every answer checked by its schema (a bad
 * answer is a ValidationError, never a crash), including property tests of
 * the wire parsers.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentApi } from '../../../packages/sdk/src/agent/api.js';
import {
  AgentViewSchema,
  ConversationDetailSchema,
  KeyChallengeAnswerSchema,
  PrincipalKeysSchema,
  SentMessageSchema,
  StoredMessageListSchema,
  TokenAnswerSchema,
  TokenRegenerationSchema,
} from '../../../packages/sdk/src/client/index.js';
import {
  isAmsError,
  isConfigurationError,
  isServiceError,
  isValidationError,
} from '../../../packages/sdk/src/core/errors/index.js';
import { parseWith } from '../../../packages/sdk/src/core/protocol/parse.js';
import { hasControlChar } from '../../../packages/sdk/src/core/protocol/primitives.js';
import { toBase64 } from '../../../packages/sdk/src/core/encoding.js';
import { buildKeyProof, generateKeys, keysFromPrivate } from '../../../packages/sdk/src/crypto/index.js';
import { createRestClient } from '../../../packages/sdk/src/transport/rest/index.js';
import { errorBody, JSON_HEADERS, mockService, ORIGIN, TOKEN } from '../../helpers/transport-rest.js';

const AGENT = 'agent-1';
const KEY = toBase64(new Uint8Array(32).fill(1));
/** A real Ed25519 public key: signing keys must pass the SDK's Ed25519 rule. */
const SIGNING_KEY = toBase64(generateKeys().signing.publicKey);
const KEY_ID = '0123456789abcdef';

function setup() {
  const { agent, pool } = mockService();
  const api = createAgentApi({ baseUrl: ORIGIN, agentId: AGENT, token: TOKEN, dispatcher: agent });
  return { agent, pool, api };
}

let closeAfter: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeAfter?.();
  closeAfter = undefined;
});

describe('createAgentApi: requests and results', () => {
  it('posts a sealed envelope to /agents/:id/messages with the bearer token and maps the answer', async () => {
    const { agent, pool, api } = setup();
    closeAfter = () => agent.close();
    let seen: { body: unknown; auth: unknown } | undefined;
    pool.intercept({ path: `/agents/${AGENT}/messages`, method: 'POST' }).reply((opts) => {
      seen = {
        body: JSON.parse(String(opts.body)),
        auth: (opts.headers as Record<string, string>)['authorization'],
      };
      return {
        statusCode: 201,
        data: { data: { message_id: 'm1', conversation_id: 'c1', seq: 3 } },
        responseOptions: { headers: JSON_HEADERS },
      };
    });
    const sent = await api.sendMessage('c1', 'AAAA');
    expect(seen).toEqual({ body: { conversation_id: 'c1', wire_envelope: 'AAAA' }, auth: `Bearer ${TOKEN}` });
    expect(sent).toMatchObject({ messageId: 'm1', conversationId: 'c1', seq: 3, created: true });
  });

  it('marks an idempotent repeat (200) as not created', async () => {
    const { agent, pool, api } = setup();
    closeAfter = () => agent.close();
    pool
      .intercept({ path: `/agents/${AGENT}/messages`, method: 'POST' })
      .reply(200, { data: { message_id: 'm1', conversation_id: 'c1' } }, { headers: JSON_HEADERS });
    expect((await api.sendMessage('c1', 'AAAA')).created).toBe(false);
  });

  it('maps getSelf, recoverConnection, governance and checkKeys to camelCase', async () => {
    const { agent, pool, api } = setup();
    closeAfter = () => agent.close();
    const keys = {
      public_key: KEY,
      signing_public_key: SIGNING_KEY,
      key_id: KEY_ID,
      valid_until: '2026-03-08T12:00:00.000Z',
    };
    pool
      .intercept({ path: `/agents/${AGENT}`, method: 'GET' })
      .reply(
        200,
        { data: { agent_id: AGENT, connection_status: 'ready', key_rotation_pending: true, keys, extra: 1 } },
        { headers: JSON_HEADERS },
      );
    pool
      .intercept({ path: `/agents/${AGENT}/connection/recover`, method: 'POST' })
      .reply(200, { data: { pending_count: 4, connection_status: 'ready' } }, { headers: JSON_HEADERS });
    pool
      .intercept({ path: `/agents/${AGENT}/governance`, method: 'GET' })
      .reply(200, { data: { level: 'L1', reason: 'spam', state: 'restricted' } }, { headers: JSON_HEADERS });
    pool
      .intercept({ path: `/agents/${AGENT}/keys/check`, method: 'POST' })
      .reply(
        200,
        { data: { match: true, generation: 'current', key_id: KEY_ID, valid_until: null } },
        { headers: JSON_HEADERS },
      );
    const self = await api.getSelf();
    expect(self).toMatchObject({ agentId: AGENT, connectionStatus: 'ready', keyRotationPending: true });
    expect(self.keys).toEqual({
      publicKey: KEY,
      signingPublicKey: SIGNING_KEY,
      keyId: KEY_ID,
      validUntilMs: Date.parse(keys.valid_until),
    });
    expect(await api.recoverConnection()).toEqual({ pendingCount: 4, connectionStatus: 'ready' });
    expect(await api.governance()).toMatchObject({ level: 'L1', reason: 'spam' });
    const proof = {
      public_key: KEY,
      signing_public_key: SIGNING_KEY,
      challenge: KEY,
      signature: 'x',
      key_proof: 'y',
    };
    expect(await api.checkKeys(proof)).toEqual({ generation: 'current', keyId: KEY_ID, validUntilMs: null });
  });

  it('registers keys with a proof built from the challenge; 201 means changed', async () => {
    const { agent, pool, api } = setup();
    closeAfter = () => agent.close();
    const keys = generateKeys();
    const server = generateKeys();
    const challenge = {
      challenge: toBase64(new Uint8Array(32).fill(9)),
      server_public_key: toBase64(server.encryption.publicKey),
    };
    pool
      .intercept({ path: `/agents/${AGENT}/keys/challenge`, method: 'GET' })
      .reply(200, { data: challenge }, { headers: JSON_HEADERS });
    let body: Record<string, unknown> = {};
    pool.intercept({ path: `/agents/${AGENT}/keys`, method: 'PUT' }).reply((opts) => {
      body = JSON.parse(String(opts.body)) as Record<string, unknown>;
      return {
        statusCode: 201,
        data: {
          data: {
            agent_id: AGENT,
            public_key: body['public_key'],
            signing_public_key: body['signing_public_key'],
            key_id: KEY_ID,
          },
        },
        responseOptions: { headers: JSON_HEADERS },
      };
    });
    const answer = await api.keyChallenge();
    const registered = await api.registerKeys(buildKeyProof(AGENT, keys, answer));
    expect(registered).toMatchObject({
      changed: true,
      keyId: KEY_ID,
      publicKey: toBase64(keys.encryption.publicKey),
    });
    expect(body['challenge']).toBe(challenge.challenge);
  });

  it('fetches system keys without a token and objects through /r2/', async () => {
    const { agent, pool, api } = setup();
    closeAfter = () => agent.close();
    let auth: unknown = 'unset';
    pool.intercept({ path: '/system/keys', method: 'GET' }).reply((opts) => {
      auth = (opts.headers as Record<string, string>)['authorization'];
      return {
        statusCode: 200,
        data: { data: { id: 'system', kind: 'system', public_key: KEY, signing_public_key: SIGNING_KEY } },
        responseOptions: { headers: JSON_HEADERS },
      };
    });
    pool
      .intercept({ path: '/r2/obj_1', method: 'GET' })
      .reply(200, Buffer.from([1, 2, 3]), { headers: { 'content-type': 'application/octet-stream' } });
    expect((await api.systemKeys()).kind).toBe('system');
    expect(auth).toBeUndefined();
    expect(await api.fetchObject('obj_1')).toEqual({
      bytes: new Uint8Array([1, 2, 3]),
      contentType: 'application/octet-stream',
      size: 3,
    });
  });

  it('passes service errors through typed (CONVERSATION_FORBIDDEN)', async () => {
    const { agent, pool, api } = setup();
    closeAfter = () => agent.close();
    pool
      .intercept({ path: '/conversations/c9', method: 'GET' })
      .reply(403, errorBody('CONVERSATION_FORBIDDEN'), { headers: JSON_HEADERS });
    const err = await api.conversation('c9').catch((e: unknown) => e);
    expect(isServiceError(err, 'CONVERSATION_FORBIDDEN')).toBe(true);
  });

  it('refuses a bad answer with a ValidationError naming the path, never the value', async () => {
    const { agent, pool, api } = setup();
    closeAfter = () => agent.close();
    pool
      .intercept({ path: `/agents/${AGENT}`, method: 'GET' })
      .reply(
        200,
        { data: { agent_id: AGENT, connection_status: 42, keys: { public_key: 'secret-ish' } } },
        { headers: JSON_HEADERS },
      );
    const err = await api.getSelf().catch((e: unknown) => e);
    expect(isValidationError(err)).toBe(true);
    expect((err as Error).message).not.toContain('secret-ish');
  });

  it('validates its options', () => {
    expect(
      isConfigurationError(catchSync(() => createAgentApi({ baseUrl: ORIGIN, agentId: '', token: TOKEN }))),
    ).toBe(true);
    expect(
      isConfigurationError(catchSync(() => createAgentApi({ baseUrl: ORIGIN, agentId: 'a', token: '' }))),
    ).toBe(true);
    const rest = createRestClient({ baseUrl: ORIGIN, credentials: TOKEN });
    expect(createAgentApi({ baseUrl: ORIGIN, agentId: 'a', token: TOKEN, rest }).rest).toBe(rest);
  });
});

function catchSync(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('wire parsers (property tests)', () => {
  const schemas = {
    AgentViewSchema,
    ConversationDetailSchema,
    KeyChallengeAnswerSchema,
    PrincipalKeysSchema,
    SentMessageSchema,
    StoredMessageListSchema,
    TokenAnswerSchema,
    TokenRegenerationSchema,
  };

  it('throw only ValidationError on arbitrary input', () => {
    for (const [name, schema] of Object.entries(schemas)) {
      fc.assert(
        fc.property(fc.anything(), (input) => {
          try {
            parseWith(schema, input, name);
          } catch (err) {
            expect(isValidationError(err)).toBe(true);
          }
        }),
        { numRuns: 200 },
      );
    }
  });

  it('accept every well-formed principal key record and keep unknown fields', () => {
    const b64key = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(toBase64);
    const signingKey = fc
      .uint8Array({ minLength: 32, maxLength: 32 })
      .map((seed) => toBase64(keysFromPrivate(new Uint8Array(32), seed).signing.publicKey));
    const keyId = fc.stringMatching(/^[0-9a-f]{16}$/);
    fc.assert(
      fc.property(
        fc.record({
          id: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !hasControlChar(s)),
          kind: fc.constantFrom('user', 'agent', 'system'),
          public_key: b64key,
          signing_public_key: fc.option(signingKey, { nil: null }),
          key_id: keyId,
          retired: fc.array(
            fc.record({
              public_key: b64key,
              key_id: keyId,
              valid_until: fc.constant('2026-03-08T12:00:00.000Z'),
            }),
            { maxLength: 3 },
          ),
          future_field: fc.integer(),
        }),
        (record) => {
          expect(parseWith(PrincipalKeysSchema, record, 'keys')).toEqual(record);
        },
      ),
    );
  });

  it('refuse a key of any length but 32 bytes', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 64 }).filter((b) => b.length !== 32),
        (bytes) => {
          const err = catchSync(() =>
            parseWith(PrincipalKeysSchema, { id: 'a', kind: 'agent', public_key: toBase64(bytes) }, 'keys'),
          );
          expect(isAmsError(err) && isValidationError(err)).toBe(true);
        },
      ),
    );
  });
});
