import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { AGENT_TOKEN_PATTERN } from '../../../../packages/sdk/src/core/protocol/agent-token.js';
import { createAgentTokenService } from '../../../../packages/dev/src/server/agents/token-service.js';
import type { AgentRecord } from '../../../../packages/dev/src/server/store/agent-types.js';
import { createMemoryAgentStore } from '../../../../packages/dev/src/server/store/memory-agents.js';

async function setup() {
  const clock = new ManualClock(0);
  const store = createMemoryAgentStore();
  const service = createAgentTokenService(store, clock, 4);
  const { token, record } = await service.issue();
  const agent: AgentRecord = {
    agentId: 'a1',
    ownerId: 'u1',
    name: 'A',
    createdAtMs: 0,
    tokens: [record],
    keys: undefined,
    retiredKeys: [],
    keyRotationPending: false,
    governance: { level: 'none', reason: null, updatedAtMs: 0 },
  };
  await store.create(agent, 50);
  return { clock, store, service, token, record };
}

describe('agent token service', () => {
  it('issues hsk_ tokens and stores only a bcrypt hash', async () => {
    const { token, record } = await setup();
    expect(token).toMatch(AGENT_TOKEN_PATTERN);
    expect(record.hash).toMatch(/^\$2[aby]\$04\$/);
    expect(record.hash).not.toContain(token.slice(4));
  });

  it('checks with bcrypt once, then from the remembered digest; with or without a hint', async () => {
    const { service, token, record } = await setup();
    expect(await service.check(token, undefined)).toEqual({ agentId: 'a1', tokenId: record.tokenId });
    expect(service.bcryptChecks).toBe(1);
    expect(await service.check(token, 'a1')).toEqual({ agentId: 'a1', tokenId: record.tokenId });
    expect(service.bcryptChecks).toBe(1);
  });

  it('a hint naming another agent does not find the token on first sight', async () => {
    const { service, token } = await setup();
    expect(await service.check(token, 'other')).toBeUndefined();
    expect(service.bcryptChecks).toBe(0);
  });

  it('rejects malformed tokens without bcrypt and wrong ones after it', async () => {
    const { service } = await setup();
    expect(await service.check('hsk_short', 'a1')).toBeUndefined();
    expect(service.bcryptChecks).toBe(0);
    expect(await service.check(`hsk_${'0'.repeat(40)}`, 'a1')).toBeUndefined();
    expect(service.bcryptChecks).toBe(1);
  });

  it('a remembered token stops working as soon as the record goes or its grace ends', async () => {
    const { service, token, store, clock, record } = await setup();
    await service.check(token, 'a1');
    await store.update('a1', (a) => ({ ...a, tokens: [{ ...record, validUntilMs: 1_000 }] }));
    expect(await service.check(token, 'a1')).toBeDefined();
    clock.advance(1_000);
    expect(await service.check(token, 'a1')).toBeUndefined();
    await store.update('a1', (a) => ({ ...a, tokens: [] }));
    expect(await service.check(token, 'a1')).toBeUndefined();
  });

  it('forget drops remembered digests (the next check needs bcrypt again)', async () => {
    const { service, token } = await setup();
    await service.check(token, 'a1');
    service.forget('a1');
    await service.check(token, 'a1');
    expect(service.bcryptChecks).toBe(2);
  });
});
