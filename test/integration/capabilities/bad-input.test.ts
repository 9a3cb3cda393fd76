/**
 * Malformed requests to the manifest and grant routes of the reference
 * server, sent raw: each is a clear catalogue error, never a crash; and the
 * routes check who is asking.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestWorld, type TestWorld } from '../../../packages/dev/src/testing/index.js';
import { sampleManifest } from '../../fixtures/manifests/manifests.js';

let world: TestWorld;
let agentToken: string;
let userToken: string;

beforeAll(async () => {
  world = await createTestWorld();
  agentToken = (await world.user.regenerateAgentToken(world.agentId)).token;
  userToken = (await world.server.control.accessToken(world.user.session!.userId)).accessToken;
});
afterAll(async () => {
  await world.close();
});

/** A well-formed signed decision whose content does not matter: the state checks come first. */
const WELL_FORMED_SIGNED = {
  statement: {
    v: 1,
    kind: 'grant.revoked',
    agent_id: 'a',
    signer_id: 'u',
    decided_at: '2026-01-01T00:00:00.000Z',
    grant_id: 'nope',
    conversation_id: 'c',
    scope: 'profile.read',
    window_seconds: 60,
  },
  signature: `${'A'.repeat(86)}==`,
};

async function call(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${world.server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const json = (await res.json()) as { error?: { code: string; params?: Record<string, unknown> } };
  return { status: res.status, code: json.error?.code };
}

describe('manifest routes, bad input', () => {
  it.each<[string, unknown]>([
    ['no based_on_version', { manifest: sampleManifest() }],
    ['a negative based_on_version', { manifest: sampleManifest(), based_on_version: -1 }],
    ['an extra field', { manifest: sampleManifest(), based_on_version: 0, force: true }],
    ['a manifest that is a string', { manifest: 'x', based_on_version: 0 }],
    [
      'a manifest with a bad tool',
      { manifest: { ...sampleManifest(), tools: [{ name: 1 }] }, based_on_version: 0 },
    ],
    ['not JSON', '{"manifest":'],
  ])('PUT with %s: 400 VALIDATION_ERROR', async (_what, body) => {
    expect(await call('PUT', `/agents/${world.agentId}/manifest`, agentToken, body)).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
  });

  it('a decision with a bad body, or by the agent itself, is refused', async () => {
    const path = `/agents/${world.agentId}/manifest/decision`;
    expect(await call('POST', path, userToken, { version: 1, decision: 'maybe' })).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    expect((await call('POST', path, agentToken, { version: 1, decision: 'accepted' })).status).toBe(401);
    expect(await call('POST', path, userToken, { version: 1, decision: 'accepted' })).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR', // no signed_decision: the owner's signature is required
    });
    const signed = { version: 1, decision: 'accepted', signed_decision: WELL_FORMED_SIGNED };
    expect(await call('POST', path, userToken, signed)).toEqual({
      status: 409,
      code: 'MANIFEST_VERSION_CONFLICT',
    });
  });
});

describe('grant routes, bad input', () => {
  it.each<[string, unknown]>([
    ['an unknown scope', { conversation_id: 'c', scope: 'files.read', window_seconds: 60, reason: 'r' }],
    ['a window too long', { conversation_id: 'c', scope: 'profile.read', window_seconds: 1e9, reason: 'r' }],
    [
      'a fractional window',
      { conversation_id: 'c', scope: 'profile.read', window_seconds: 60.5, reason: 'r' },
    ],
    ['an empty reason', { conversation_id: 'c', scope: 'profile.read', window_seconds: 60, reason: '' }],
    ['no conversation', { scope: 'profile.read', window_seconds: 60, reason: 'r' }],
  ])('a request with %s: 400 VALIDATION_ERROR', async (_what, body) => {
    expect(await call('POST', `/agents/${world.agentId}/grants`, agentToken, body)).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
  });

  it('user routes: a bad status filter, a bad decision, an unknown grant', async () => {
    expect(await call('GET', '/grants?status=bogus', userToken)).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    expect(await call('POST', '/grants/nope/decision', userToken, { decision: 'granted' })).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR', // no signed_decision: the user's signature is required
    });
    const granted = { decision: 'granted', signed_decision: WELL_FORMED_SIGNED };
    expect(await call('POST', '/grants/nope/decision', userToken, granted)).toEqual({
      status: 404,
      code: 'NOT_FOUND',
    });
    expect(await call('POST', '/grants/nope/decision', userToken, { decision: 'yes' })).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    expect(await call('DELETE', '/grants/nope', userToken)).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    expect(await call('DELETE', '/grants/nope', userToken, { signed_decision: WELL_FORMED_SIGNED })).toEqual({
      status: 404,
      code: 'NOT_FOUND',
    });
    expect((await call('GET', '/grants', agentToken)).status).toBe(401);
  });
});
