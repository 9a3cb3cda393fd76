/**
 * ensureAgentKeys against a fake service that keeps registered generations
 * the way the reference server does, with a virtual clock: every row of the
 * lifecycle table, the events and log lines, and that nothing secret is
 * logged or emitted.
 */
import type { KeyStatementWire } from '../../../packages/sdk/src/core/protocol/key-statement.js';
import { keyStatementFromWire, verifyKeyStatement } from '../../../packages/sdk/src/crypto/key-statement.js';
import { describe, expect, it } from 'vitest';
import type { KeyLifecycleApi, KeyLifecycleEvent } from '../../../packages/sdk/src/agent/key-lifecycle.js';
import { ensureAgentKeys } from '../../../packages/sdk/src/agent/key-lifecycle.js';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { toBase64 } from '../../../packages/sdk/src/core/encoding.js';
import { ServiceError } from '../../../packages/sdk/src/core/errors/index.js';
import { LIMITS } from '../../../packages/sdk/src/core/limits.js';
import {
  generateKeys,
  keyFingerprint,
  KeyRing,
  MemoryKeyStore,
  type AgentKeys,
} from '../../../packages/sdk/src/crypto/index.js';
import { recordingLogger } from '../../helpers/client-setup.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const DAY = 24 * 3600_000;

interface Generation {
  readonly publicKey: string;
  readonly validUntilMs: number | null;
}

/** A fake service: current generation, retired ones, a pending-rotation flag. */
function fakeService(clock: ManualClock) {
  const state = {
    current: null as Generation | null,
    retired: [] as Generation[],
    pending: false,
    registrations: 0,
    checks: 0,
    /** The key statements uploaded, one per registration (undefined when none). */
    statements: [] as (KeyStatementWire | undefined)[],
  };
  const server = generateKeys();
  const fp = (b64: string) => keyFingerprint(Uint8Array.from(Buffer.from(b64, 'base64')));
  const api: KeyLifecycleApi = {
    agentId: 'agent-1',
    async getSelf() {
      const k = state.current;
      return {
        agentId: 'agent-1',
        connectionStatus: 'ready',
        keyRotationPending: state.pending,
        keys:
          k === null
            ? null
            : {
                publicKey: k.publicKey,
                signingPublicKey: k.publicKey,
                keyId: fp(k.publicKey),
                validUntilMs: k.validUntilMs,
              },
        view: { agent_id: 'agent-1', connection_status: 'ready' },
      };
    },
    async keyChallenge() {
      return {
        challenge: toBase64(new Uint8Array(32).fill(5)),
        server_public_key: toBase64(server.encryption.publicKey),
      };
    },
    async registerKeys(fields, options) {
      state.statements.push(options?.statement);
      const same = state.current?.publicKey === fields.public_key;
      if (state.current !== null && !state.pending && !same && options?.replace !== true) {
        throw new ServiceError({
          code: 'AGENT_KEYS_MISMATCH',
          status: 409,
          message: 'registered',
          params: { reason: 'keys_registered' },
        });
      }
      if (!same) {
        if (state.current !== null && state.current.validUntilMs !== null) state.retired.push(state.current);
        state.current = { publicKey: fields.public_key, validUntilMs: null };
        state.pending = false;
        state.registrations += 1;
      }
      return {
        publicKey: fields.public_key,
        signingPublicKey: fields.signing_public_key,
        keyId: fp(fields.public_key),
        validUntilMs: null,
        changed: !same,
      };
    },
    async checkKeys(fields) {
      state.checks += 1;
      const live = [state.current, ...state.retired].filter((g): g is Generation => g !== null);
      if (live.length === 0)
        throw new ServiceError({ code: 'AGENT_NOT_REGISTERED', status: 404, message: 'none' });
      const match = live.find((g) => g.publicKey === fields.public_key);
      if (match === undefined)
        throw new ServiceError({ code: 'AGENT_KEYS_MISMATCH', status: 409, message: 'differ' });
      return {
        generation: match === state.current ? 'current' : 'retired',
        keyId: fp(match.publicKey),
        validUntilMs: match.validUntilMs,
      };
    },
  };
  /** The owner regenerates the token. */
  const regenerate = (emergency: boolean) => {
    state.pending = true;
    if (emergency) {
      state.current = null;
      state.retired = [];
    } else if (state.current !== null) {
      state.current = { ...state.current, validUntilMs: clock.now() + LIMITS.TOKEN_GRACE_MS };
    }
  };
  return { api, state, regenerate };
}

async function start(api: KeyLifecycleApi, store: MemoryKeyStore, clock: ManualClock) {
  const events: KeyLifecycleEvent[] = [];
  const logger = recordingLogger();
  const ring = await ensureAgentKeys({ api, store, clock, logger, onEvent: (e) => events.push(e) });
  return { ring, events, logger };
}

const pub = (k: AgentKeys) => toBase64(k.encryption.publicKey);
const fpOf = (r: KeyRing) => keyFingerprint(r.current.keys.encryption.publicKey);

function secretsOf(ring: KeyRing): string[] {
  return [ring.current.keys.encryption.privateKey, ring.current.keys.signing.privateKey].map(toBase64);
}

describe('ensureAgentKeys', () => {
  it('creates, saves and registers keys on the first start; loads and proves them on the second', async () => {
    const clock = new ManualClock(T0);
    const { api, state } = fakeService(clock);
    const store = new MemoryKeyStore({ clock });
    const first = await start(api, store, clock);
    expect(first.events.map((e) => e.type)).toEqual(['keys.created', 'keys.registered']);
    expect(state.current?.publicKey).toBe(pub(first.ring.current.keys));
    const second = await start(api, store, clock);
    expect(second.events).toEqual([]);
    expect(fpOf(second.ring)).toBe(fpOf(first.ring));
    expect(state.checks).toBe(1);
    for (const secret of secretsOf(first.ring)) {
      expect(first.logger.text()).not.toContain(secret);
      expect(JSON.stringify(first.events)).not.toContain(secret);
    }
  });

  it('registers stored keys the service does not have (AGENT_NOT_REGISTERED)', async () => {
    const clock = new ManualClock(T0);
    const { api, state } = fakeService(clock);
    const store = new MemoryKeyStore({ clock });
    const ring = KeyRing.create(generateKeys(), T0);
    await store.save(ring);
    const run = await start(api, store, clock);
    expect(run.events.map((e) => e.type)).toEqual(['keys.registered']);
    expect(state.current?.publicKey).toBe(pub(ring.current.keys));
  });

  it('heals a mismatch: wipes, regenerates, registers, emits and warns', async () => {
    const clock = new ManualClock(T0);
    const { api, state } = fakeService(clock);
    const store = new MemoryKeyStore({ clock });
    await start(api, store, clock);
    await store.save(KeyRing.create(generateKeys(), T0)); // the store was replaced
    // Like the reference server, the fake takes other keys only with `replace: true` (or after a regeneration).
    const run = await start(api, store, clock);
    expect(run.events.map((e) => e.type)).toEqual(['keys.registered', 'keys.mismatch_healed']);
    expect(run.events[1]?.fingerprint).toBe(fpOf(run.ring));
    expect(
      run.logger.lines
        .filter((l) => l.level === 'warn')
        .map((l) => l.message)
        .join(),
    ).toContain('AGENT_KEYS_MISMATCH');
    expect(state.current?.publicKey).toBe(pub(run.ring.current.keys));
    expect(fpOf((await store.load())!)).toBe(fpOf(run.ring));
  });

  it('heals without a regeneration: the new keys are registered with replace: true', async () => {
    const clock = new ManualClock(T0);
    const { api, state } = fakeService(clock);
    const store = new MemoryKeyStore({ clock });
    await start(api, store, clock);
    await store.save(KeyRing.create(generateKeys(), T0));
    const replaceFlags: (boolean | undefined)[] = [];
    const spied = {
      ...api,
      registerKeys: (fields: Parameters<typeof api.registerKeys>[0], options?: { replace?: boolean }) => {
        replaceFlags.push(options?.replace);
        return api.registerKeys(fields, options);
      },
    };
    const run = await start(spied, store, clock);
    expect(replaceFlags).toEqual([true]);
    expect(state.current?.publicKey).toBe(pub(run.ring.current.keys));
  });

  it('after a normal regeneration: rotates, keeps the old pair until the service grace ends, registers', async () => {
    const clock = new ManualClock(T0);
    const { api, state, regenerate } = fakeService(clock);
    const store = new MemoryKeyStore({ clock });
    const first = await start(api, store, clock);
    clock.advance(DAY);
    regenerate(false);
    clock.advance(1000);
    const run = await start(api, store, clock);
    expect(run.events.map((e) => e.type)).toEqual(['keys.rotated', 'keys.registered']);
    expect(run.events[0]).toMatchObject({
      previousFingerprint: fpOf(first.ring),
      graceMs: LIMITS.TOKEN_GRACE_MS - 1000,
    });
    expect(run.ring.candidates(clock.now()).map((k) => toBase64(k.publicKey))).toEqual([
      pub(run.ring.current.keys),
      pub(first.ring.current.keys),
    ]);
    expect(state.current?.publicKey).toBe(pub(run.ring.current.keys));
    // The old signing key vouched for the new keys, dated by the agent's clock.
    const statement = state.statements.at(-1)!;
    expect(statement).toMatchObject({
      subject: 'agent-1',
      generation: 2,
      public_key: pub(run.ring.current.keys),
      previous_key_id: fpOf(first.ring),
      issued_at: new Date(clock.now()).toISOString(),
    });
    const old = first.ring.current.keys;
    expect(
      verifyKeyStatement(keyStatementFromWire(statement), {
        signing: old.signing.publicKey,
        encryption: old.encryption.publicKey,
      }),
    ).toBe(true);
    clock.advance(LIMITS.TOKEN_GRACE_MS - 1000);
    expect((await store.load())!.retired).toEqual([]);
  });

  it('after an emergency regeneration: rotates with no grace', async () => {
    const clock = new ManualClock(T0);
    const { api, state, regenerate } = fakeService(clock);
    const store = new MemoryKeyStore({ clock });
    await start(api, store, clock);
    regenerate(true);
    const run = await start(api, store, clock);
    expect(run.events[0]).toMatchObject({ type: 'keys.rotated', graceMs: 0 });
    expect(run.ring.retired).toEqual([]);
    // The old key is presumed stolen: it vouches for nothing (peers see a key change).
    expect(state.statements.at(-1)).toBeUndefined();
  });

  it('registers freshly created keys when a regeneration is pending', async () => {
    const clock = new ManualClock(T0);
    const { api, regenerate } = fakeService(clock);
    await start(api, new MemoryKeyStore({ clock }), clock);
    regenerate(false);
    const run = await start(api, new MemoryKeyStore({ clock }), clock); // the old store is lost
    expect(run.events.map((e) => e.type)).toEqual(['keys.created', 'keys.registered']);
  });

  it('treats local keys that are only a retired generation as a mismatch', async () => {
    const clock = new ManualClock(T0);
    const { api, state, regenerate } = fakeService(clock);
    const store = new MemoryKeyStore({ clock });
    const old = await start(api, store, clock);
    regenerate(false);
    await start(api, new MemoryKeyStore({ clock }), clock); // another process registered new keys
    state.pending = true;
    const run = await start(api, store, clock);
    expect(run.events.map((e) => e.type)).toContain('keys.mismatch_healed');
    expect(fpOf(run.ring)).not.toBe(fpOf(old.ring));
  });

  it('ignores a throwing listener', async () => {
    const clock = new ManualClock(T0);
    const { api } = fakeService(clock);
    const logger = recordingLogger();
    const ring = await ensureAgentKeys({
      api,
      store: new MemoryKeyStore({ clock }),
      clock,
      logger,
      onEvent: () => {
        throw new Error('listener bug');
      },
    });
    expect(ring.current.keys.encryption.publicKey).toHaveLength(32);
    expect(logger.lines.some((l) => l.message.includes('listener threw'))).toBe(true);
  });
});
