import { describe, expect, it } from 'vitest';
import type { ConnectionEnd } from '../../../../packages/sdk/src/transport/ws/index.js';
import { decide, fatalError } from '../../../../packages/sdk/src/transport/ws/decide.js';

const end = (patch: Partial<ConnectionEnd>): ConnectionEnd => ({
  code: 1000,
  reason: '',
  authenticated: true,
  authError: undefined,
  sessionInvalidated: false,
  failure: undefined,
  closedByClient: false,
  ...patch,
});

describe('decide', () => {
  it('a client close ends quietly', () => {
    expect(decide(end({ closedByClient: true, code: 4010 }))).toEqual({ kind: 'closed' });
  });

  it('session.invalidated is fatal even though the client closed the socket', () => {
    const d = decide(end({ closedByClient: true, sessionInvalidated: true }));
    expect(d.kind).toBe('fatal');
  });

  it('the auth.error reason wins over the close code', () => {
    expect(decide(end({ authError: 'rate_limited', code: 4001 })).kind).toBe('reconnect');
    expect(decide(end({ authError: 'invalid_token', code: 1006 })).kind).toBe('fatal');
  });

  it('a client-side failure always reconnects; terminal codes only count from the server', () => {
    expect(decide(end({ failure: 'dead', code: 1006 })).kind).toBe('reconnect');
    expect(decide(end({ code: 4011 })).kind).toBe('fatal');
    expect(decide(end({ code: 1001 })).kind).toBe('reconnect');
    expect(decide(end({ code: 4999 })).kind).toBe('reconnect');
  });

  it('builds catalogue errors where a code fits', () => {
    const e = fatalError({
      closeCode: 4001,
      closeReason: 'x',
      authError: 'agent_suspended',
      sessionInvalidated: false,
    });
    expect(e).toMatchObject({
      code: 'AGENT_SUSPENDED',
      status: 403,
      params: { close_code: 4001, reason: 'agent_suspended' },
    });
    expect(
      fatalError({ closeCode: 4013, closeReason: '', authError: undefined, sessionInvalidated: false }).code,
    ).toBe('TRANSPORT_CLOSED');
  });
});
