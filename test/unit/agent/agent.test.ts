import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Agent } from '../../../packages/sdk/src/agent/index.js';
import { isConfigurationError, isCryptoError } from '../../../packages/sdk/src/core/errors/index.js';
import { FileKeyStore, MemoryKeyStore } from '../../../packages/sdk/src/crypto/index.js';
import { recordingLogger } from '../../helpers/agent-world.js';

const TOKEN = `hsk_${'Q9w8'.repeat(10)}`;
const SECRET = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==';

function agent(mode: 'websocket' | 'webhook', logger = recordingLogger()) {
  return new Agent({
    baseUrl: 'http://127.0.0.1:9',
    agentId: 'agent-1',
    token: TOKEN,
    keyStore: new MemoryKeyStore(),
    mode,
    logger,
  });
}

function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(isConfigurationError(err)).toBe(true);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigurationError');
}

describe('Agent facade (no network)', () => {
  it('starts idle with empty counters', () => {
    const a = agent('websocket');
    expect(a.state).toBe('idle');
    expect(a.agentId).toBe('agent-1');
    expect(a.stats()).toEqual({
      received: 0,
      handled: 0,
      duplicates: 0,
      decryptFailures: 0,
      decryptFailuresByReason: {},
      handlerErrors: 0,
      invalid: 0,
      failed: 0,
      deferred: 0,
      acked: 0,
      rejected: 0,
      running: 0,
      queued: 0,
      paused: false,
      pauses: 0,
      inFlight: 0,
      inFlightBytes: 0,
      openWorkers: { workers: 0, openedInWorkers: 0, openedInThread: 0, reopened: 0 },
    });
  });

  it('accepts openWorkers "auto", false or 1 to 16 threads, and refuses anything else', () => {
    const base = {
      baseUrl: 'http://127.0.0.1:9',
      agentId: 'agent-1',
      token: TOKEN,
      keyStore: new MemoryKeyStore(),
      logger: false as const,
    };
    for (const openWorkers of ['auto', false, 1, 16] as const) {
      expect(new Agent({ ...base, openWorkers }).stats().openWorkers.workers).toBe(0);
    }
    for (const bad of [0, 17, 1.5, -1, true, 'all', null]) {
      expect(configError(() => new Agent({ ...base, openWorkers: bad as never }))).toContain('openWorkers');
    }
  });

  it('warns once per WebSocket-only event type when a listener is added in webhook mode', () => {
    const log = recordingLogger();
    const a = agent('webhook', log);
    a.on('agent.governance', () => undefined)
      .on('agent.governance', () => undefined)
      .once('authExpiring', () => undefined)
      .on('message.new', () => undefined)
      .on('relation.revoked', () => undefined);
    const warnings = log.lines.filter((l) => l.startsWith('warn'));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('"agent.governance" is sent only over WebSocket');
    expect(warnings[1]).toContain('authExpiring');
  });

  it('no warning for the same listeners in WebSocket mode', () => {
    const log = recordingLogger();
    agent('websocket', log).on('agent.governance', () => undefined);
    expect(log.lines).toEqual([]);
  });

  it('webhook(): only in webhook mode, and only with a secret; handlers are built from it', () => {
    expect(configError(() => agent('websocket').webhook({ secret: SECRET }))).toContain('mode');
    const a = agent('webhook');
    expect(configError(() => a.webhook())).toContain('secret');
    const hook = a.webhook({ secret: SECRET });
    expect(a.webhook()).toBe(hook);
    expect(typeof a.webhookHandler()).toBe('function');
    expect(typeof a.fetchHandler()).toBe('function');
    expect(typeof hook.expressMiddleware()).toBe('function');
    expect(typeof hook.fastifyPlugin({ path: '/w' })).toBe('function');
    expect(configError(() => agent('webhook').webhook({ secret: 'short' }))).toContain('secret');
  });

  it('off() removes a listener; renewToken() refuses a malformed token without echoing it', async () => {
    const a = agent('websocket');
    const l = (): void => undefined;
    a.on('error', l).off('error', l);
    await expect(a.renewToken('not-a-token-but-secret')).rejects.toSatisfy(
      (e: Error) => isConfigurationError(e) && !e.message.includes('not-a-token-but-secret'),
    );
  });

  it('close() before connect() resolves at once, drained, and connect() is refused afterwards', async () => {
    const a = agent('websocket');
    const closed: unknown[] = [];
    a.on('closed', (r) => void closed.push(r));
    expect(await a.close()).toEqual({ drained: true, abandoned: 0 });
    expect(await a.close()).toEqual({ drained: true, abandoned: 0 });
    expect(closed).toHaveLength(1);
    expect(a.state).toBe('closed');
    await expect(a.connect()).rejects.toMatchObject({ code: 'CONFIGURATION_ERROR' });
  });
});

describe('Agent.connect with a corrupt key store', () => {
  it('fails with KEY_STORE_CORRUPT naming the key file under a temp directory, before any request', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ams-agent-keys-')); // random suffix, often with capitals
    try {
      const directory = join(root, 'agents', 'agent-1');
      await mkdir(directory, { recursive: true });
      const store = new FileKeyStore({ directory });
      await writeFile(store.file, '{"format":');
      await writeFile(store.previousFile, '{"format":');
      const logger = recordingLogger();
      const a = new Agent({
        baseUrl: 'http://127.0.0.1:9',
        agentId: 'agent-1',
        token: TOKEN,
        keyStore: store,
        mode: 'webhook',
        logger,
      });
      const err: unknown = await a.connect().catch((e: unknown) => e);
      expect(isCryptoError(err, 'KEY_STORE_CORRUPT')).toBe(true);
      expect((err as Error).message).toBe(
        `Key store ${store.file} is corrupt: not JSON; the previous generation ${store.previousFile} is corrupt too`,
      );
      expect((err as { file?: string }).file).toBe(store.file);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
