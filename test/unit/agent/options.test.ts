import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_AGENT_OPTIONS,
  resolveAgentOptions,
  type AgentOptions,
} from '../../../packages/sdk/src/agent/options.js';
import { isConfigurationError } from '../../../packages/sdk/src/core/errors/index.js';
import { FileKeyStore, MemoryKeyStore } from '../../../packages/sdk/src/crypto/index.js';

const TOKEN = `hsk_${'a1B2'.repeat(10)}`;
const base: AgentOptions = {
  baseUrl: 'https://api.example.com/',
  agentId: 'agent-1',
  token: TOKEN,
  keyStore: new MemoryKeyStore(),
};

function refused(options: unknown): string | undefined {
  try {
    resolveAgentOptions(options as AgentOptions);
  } catch (err) {
    expect(isConfigurationError(err)).toBe(true);
    expect((err as Error).message).not.toContain(TOKEN);
    return (err as { params: { option?: string } }).params.option ?? (err as Error).message;
  }
  return undefined;
}

afterEach(() => vi.unstubAllEnvs());

describe('agent options', () => {
  it('applies the defaults', () => {
    const o = resolveAgentOptions(base);
    expect(o).toMatchObject({
      baseUrl: 'https://api.example.com',
      mode: DEFAULT_AGENT_OPTIONS.mode,
      concurrency: 16,
      autoRecover: true,
      closeTimeoutMs: 10_000,
      // WebSocket mode, a store that renews claims: a short lease, kept alive while handlers run.
      claimLeaseMs: 15_000,
      copies: 'exclusive',
      webSocketUrl: 'wss://api.example.com/ws',
    });
  });

  it('keeps the 10-minute lease in webhook mode and for a store that cannot renew claims', () => {
    expect(resolveAgentOptions({ ...base, mode: 'webhook' }).claimLeaseMs).toBe(600_000);
    const store = { claim: () => ({ status: 'busy' as const }), complete: () => {}, release: () => {} };
    expect(resolveAgentOptions({ ...base, dedupStore: store }).claimLeaseMs).toBe(600_000);
  });

  it('names the first bad option', () => {
    const cases: [Partial<AgentOptions> & Record<string, unknown>, string][] = [
      [{ baseUrl: 'ftp://x' }, 'baseUrl'],
      [{ baseUrl: 'not a url' }, 'baseUrl'],
      [{ agentId: '' }, 'agentId'],
      [{ token: 'secret' }, 'token'],
      [{ token: `hsk_${'x'.repeat(39)}` }, 'token'],
      [{ mode: 'polling' as never }, 'mode'],
      [{ concurrency: 0 }, 'concurrency'],
      [{ claimLeaseMs: -1 }, 'claimLeaseMs'],
      [{ copies: 'many' as 'shared' }, 'copies'],
      [{ closeTimeoutMs: Number.NaN }, 'closeTimeoutMs'],
      [{ autoRecover: 'yes' as never }, 'autoRecover'],
      [{ keyStore: {} as never }, 'keyStore'],
    ];
    for (const [patch, option] of cases) expect(refused({ ...base, ...patch })).toContain(option);
  });

  it('without a key store: a FileKeyStore under $AMS_KEY_DIR/<agentId>, else a configuration error', () => {
    const { keyStore: _ignored, ...rest } = base;
    vi.stubEnv('AMS_KEY_DIR', '');
    expect(refused(rest)).toContain('keyStore');
    vi.stubEnv('AMS_KEY_DIR', '/var/lib/agents');
    const store = resolveAgentOptions(rest).keyStore;
    expect(store).toBeInstanceOf(FileKeyStore);
    expect((store as FileKeyStore).file).toBe('/var/lib/agents/agent-1/keys.json');
  });
});

describe('agent logger default (failures are loud)', () => {
  it('without a logger, warnings and errors go to the console, redacted; info and debug do not', () => {
    const calls: [string, string][] = [];
    for (const level of ['debug', 'info', 'warn', 'error'] as const) {
      vi.spyOn(console, level).mockImplementation((line: string) => void calls.push([level, line]));
    }
    try {
      const { logger } = resolveAgentOptions(base);
      logger.debug('d');
      logger.info('i');
      logger.warn('w');
      logger.error(`bad token ${TOKEN}`);
      expect(calls.map(([level]) => level)).toEqual(['warn', 'error']);
      expect(calls[0]![1]).toBe('[agent-messaging-sdk] warn: w');
      expect(calls[1]![1]).toMatch(/^\[agent-messaging-sdk\] error: bad token /);
      expect(calls[1]![1]).not.toContain(TOKEN);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('logger: false writes nothing anywhere', () => {
    const spies = (['debug', 'info', 'warn', 'error'] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation(() => undefined),
    );
    try {
      const { logger } = resolveAgentOptions({ ...base, logger: false });
      logger.warn('w');
      logger.error('e');
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
    }
  });
});

describe('agent option rateLimiters', () => {
  it('sends pass the given messages limiter (e.g. limits shared through Redis)', async () => {
    const { Agent } = await import('../../../packages/sdk/src/agent/agent.js');
    const acquired: string[] = [];
    const messages = {
      acquire: async () => void acquired.push('messages'),
      pending: 0,
    };
    const agent = new Agent({
      ...base,
      baseUrl: 'http://127.0.0.1:9',
      logger: false,
      retry: { maxAttempts: 1 },
      rateLimiters: { messages },
    });
    await expect(agent.api.sendMessage('conv-1', 'AAAA')).rejects.toThrow();
    expect(acquired).toEqual(['messages']);
  });
});
