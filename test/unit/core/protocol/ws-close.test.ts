import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  agentWebSocketUrl,
  AUTH_ERROR_CLOSE_CODES,
  authErrorDisposition,
  catalogueCodeForWsFailure,
  closeDisposition,
  isTerminalAuthError,
  isTerminalClose,
  WS_AUTH_ERROR_REASONS,
  WS_CLOSE_CODES,
} from '../../../../packages/sdk/src/core/protocol/index.js';

describe('WebSocket close codes', () => {
  it('classifies every named code', () => {
    const terminal = Object.entries(WS_CLOSE_CODES)
      .filter(([, code]) => isTerminalClose(code))
      .map(([name]) => name)
      .sort();
    expect(terminal).toEqual(
      [
        'AGENT_BANNED',
        'AGENT_SUSPENDED',
        'AUTH_FAILED',
        'REPLACED',
        'SESSION_INVALIDATED',
        'TOKEN_REVOKED',
        'TOO_MANY_CONNECTIONS',
        'WEBHOOK_MODE',
      ].sort(),
    );
    expect(closeDisposition(WS_CLOSE_CODES.GOING_AWAY)).toBe('reconnect');
    expect(closeDisposition(WS_CLOSE_CODES.AGENT_BANNED)).toBe('terminal');
  });

  it('matches the reference server part 1 (4001–4004) and uses the application range', () => {
    expect([
      WS_CLOSE_CODES.AUTH_FAILED,
      WS_CLOSE_CODES.AUTH_TIMEOUT,
      WS_CLOSE_CODES.TOKEN_EXPIRED,
      WS_CLOSE_CODES.SESSION_INVALIDATED,
    ]).toEqual([4001, 4002, 4003, 4004]);
    const app = Object.values(WS_CLOSE_CODES).filter((c) => c >= 4000);
    expect(app.every((c) => c <= 4999)).toBe(true);
    expect(new Set(Object.values(WS_CLOSE_CODES)).size).toBe(Object.values(WS_CLOSE_CODES).length);
  });

  it('reconnects on every unnamed code (property)', () => {
    const named = new Set<number>(Object.values(WS_CLOSE_CODES));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6000 }), (code) => {
        if (!named.has(code)) expect(isTerminalClose(code)).toBe(false);
      }),
    );
  });
});

describe('auth.error reasons', () => {
  it('classifies the named reasons and treats unknown ones as terminal', () => {
    const reconnect = Object.values(WS_AUTH_ERROR_REASONS)
      .filter((r) => !isTerminalAuthError(r))
      .sort();
    expect(reconnect).toEqual(['auth_timeout', 'device_mismatch', 'internal_error', 'rate_limited']);
    expect(isTerminalAuthError('invalid_token')).toBe(true);
    expect(authErrorDisposition('something_new')).toBe('terminal');
  });

  it('the close code after each auth.error has the same disposition as the reason', () => {
    for (const [reason, code] of Object.entries(AUTH_ERROR_CLOSE_CODES)) {
      expect([reason, isTerminalClose(code)]).toEqual([reason, isTerminalAuthError(reason)]);
    }
    const named = Object.values(WS_AUTH_ERROR_REASONS).filter((r) => r !== 'device_mismatch');
    expect(Object.keys(AUTH_ERROR_CLOSE_CODES).sort()).toEqual([...named].sort());
  });

  it('maps terminal failures to catalogue codes', () => {
    expect(catalogueCodeForWsFailure({ authError: 'invalid_token' })).toBe('AGENT_TOKEN_INVALID');
    expect(catalogueCodeForWsFailure({ authError: 'agent_banned', closeCode: 4001 })).toBe('AGENT_BANNED');
    expect(catalogueCodeForWsFailure({ authError: 'keys_mismatch' })).toBe('AGENT_KEYS_MISMATCH');
    expect(catalogueCodeForWsFailure({ closeCode: 4010 })).toBe('AGENT_SUSPENDED');
    expect(catalogueCodeForWsFailure({ closeCode: 4005 })).toBe('AGENT_TOKEN_INVALID');
    expect(catalogueCodeForWsFailure({ closeCode: 4012 })).toBeUndefined();
  });
});

describe('agentWebSocketUrl', () => {
  it('swaps the scheme, keeps a base path, and drops anything that could carry a credential', () => {
    expect(agentWebSocketUrl('https://api.example.com')).toBe('wss://api.example.com/ws');
    expect(agentWebSocketUrl('http://127.0.0.1:8080/base/')).toBe('ws://127.0.0.1:8080/base/ws');
    expect(agentWebSocketUrl('https://u:p@api.example.com/v1?token=x#f')).toBe('wss://api.example.com/v1/ws');
    expect(() => agentWebSocketUrl('ftp://x')).toThrow(TypeError);
  });
});
