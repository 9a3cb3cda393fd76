import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../packages/sdk/src/core/errors/index.js';
import {
  ackFrame,
  authFrame,
  authRenewFrame,
  encodeWsFrame,
  parseWsFrame,
  WS_CONTROL_FRAME_TYPES,
  WS_EVENT_FRAME_TYPES,
  type WsControlFrame,
} from '../../../../packages/sdk/src/core/protocol/index.js';
import { inlineBody, referencedBody } from './fixtures.js';

const TOKEN = 'hsk_' + 'k'.repeat(40);

function pathsOf(text: string): string[] {
  try {
    parseWsFrame(text);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).issues.map((i) => i.path.join('.'));
  }
  return [];
}

describe('control frames', () => {
  it('round-trip through the builders and parseWsFrame', () => {
    expect(parseWsFrame(authFrame({ agentId: 'agent-1', token: TOKEN }))).toEqual({
      kind: 'control',
      frame: { type: 'auth', agent_id: 'agent-1', token: TOKEN },
    });
    expect(parseWsFrame(authRenewFrame('eyJhbGciOi.x.y'))).toEqual({
      kind: 'control',
      frame: { type: 'auth.renew', access_token: 'eyJhbGciOi.x.y' },
    });
    const frames: WsControlFrame[] = [
      { type: 'auth.ok' },
      { type: 'auth.error', reason: 'invalid_token' },
      { type: 'auth.error', reason: 'some_future_reason' },
      { type: 'session.invalidated' },
    ];
    for (const frame of frames)
      expect(parseWsFrame(encodeWsFrame(frame))).toEqual({ kind: 'control', frame });
  });

  it('lists the five control frame types of the spec and our ack frame', () => {
    expect([...WS_CONTROL_FRAME_TYPES]).toEqual([
      'auth',
      'ack',
      'auth.ok',
      'auth.error',
      'auth.renew',
      'session.invalidated',
    ]);
    expect(WS_EVENT_FRAME_TYPES).not.toContain('session.invalidated');
  });

  it.each([
    ['auth without token', { type: 'auth', agent_id: 'a' }, 'token'],
    ['auth with empty token', { type: 'auth', agent_id: 'a', token: '' }, 'token'],
    ['auth without agent_id', { type: 'auth', token: TOKEN }, 'agent_id'],
    ['auth.error without reason', { type: 'auth.error' }, 'reason'],
    ['auth.renew without access_token', { type: 'auth.renew' }, 'access_token'],
  ])('rejects %s', (_name, frame, path) => {
    expect(pathsOf(JSON.stringify(frame))).toEqual([path]);
  });

  it('never echoes a token from a rejected auth frame', () => {
    try {
      parseWsFrame(JSON.stringify({ type: 'auth', agent_id: 42, token: TOKEN }));
      expect.unreachable();
    } catch (err) {
      expect(JSON.stringify(err)).not.toContain(TOKEN);
      expect(JSON.stringify((err as ValidationError).issues)).not.toContain(TOKEN);
    }
  });

  it('accepts a well-formed but unknown token shape (the server answers auth.error, not a parse error)', () => {
    expect(parseWsFrame(JSON.stringify({ type: 'auth', agent_id: 'a', token: 'wrong' })).kind).toBe(
      'control',
    );
  });
});

describe('event frames', () => {
  it('accept the webhook body layout and cleartext payloads', () => {
    expect(parseWsFrame(JSON.stringify(inlineBody())).kind).toBe('event');
    expect(parseWsFrame(JSON.stringify(referencedBody())).kind).toBe('event');
    const revoked = parseWsFrame(
      JSON.stringify({ type: 'relation.revoked', payload: { user_id: 'u', conversation_id: 'c' } }),
    );
    expect(revoked).toEqual({
      kind: 'event',
      frame: { type: 'relation.revoked', payload: { user_id: 'u', conversation_id: 'c' } },
    });
    expect(parseWsFrame(JSON.stringify({ type: 'auth.expiring' })).kind).toBe('event');
  });

  it('check documented payload facts and envelope consistency', () => {
    expect(pathsOf(JSON.stringify({ type: 'grant.revoked', payload: { grant_id: 'g' } }))).toEqual([
      'payload.scope',
      'payload.user_id',
    ]);
    const { ref: _r, ...noRef } = referencedBody();
    expect(pathsOf(JSON.stringify(noRef))).toEqual(['ref']);
    expect(pathsOf(JSON.stringify({ ...inlineBody(), ref: referencedBody()['ref'] }))).toEqual(['ref']);
    expect(pathsOf(JSON.stringify({ type: 'message.new', payload: { type: 'text', text: 'leak' } }))).toEqual(
      ['payload'],
    );
  });
});

describe('parseWsFrame edge cases', () => {
  it('keeps a frame of unknown type as an unknown frame', () => {
    expect(parseWsFrame('{"type":"ping","n":1}')).toEqual({
      kind: 'unknown',
      type: 'ping',
      frame: { type: 'ping', n: 1 },
    });
    expect(parseWsFrame('{"type":"toString"}').kind).toBe('unknown');
  });

  it.each([
    ['malformed JSON', '{"type":', ''],
    ['an array', '[{"type":"auth.ok"}]', ''],
    ['a string', '"auth.ok"', ''],
    ['null', 'null', ''],
    ['no type', '{"reason":"x"}', 'type'],
    ['a numeric type', '{"type":1}', 'type'],
    ['an empty type', '{"type":""}', 'type'],
  ])('rejects %s', (_name, text, path) => {
    expect(pathsOf(text)).toEqual([path]);
  });

  it('classifies every JSON object by its type (property)', () => {
    const known = fc.constantFrom(...WS_CONTROL_FRAME_TYPES, ...WS_EVENT_FRAME_TYPES);
    fc.assert(
      fc.property(
        fc.oneof(known, fc.string({ minLength: 1 })),
        fc.dictionary(fc.string(), fc.jsonValue()),
        (type, rest) => {
          const text = JSON.stringify({ ...rest, type });
          let kind: string | undefined;
          try {
            kind = parseWsFrame(text).kind;
          } catch (err) {
            expect(err).toBeInstanceOf(ValidationError);
          }
          const isControl = (WS_CONTROL_FRAME_TYPES as readonly string[]).includes(type);
          const isEvent = (WS_EVENT_FRAME_TYPES as readonly string[]).includes(type);
          if (kind !== undefined) expect(kind).toBe(isControl ? 'control' : isEvent ? 'event' : 'unknown');
          if (!isControl && !isEvent) expect(kind).toBe('unknown');
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('acknowledged delivery frames (gap decision)', () => {
  it('auth asks with ack: true only when told; ackFrame carries the ids', () => {
    expect(JSON.parse(authFrame({ agentId: 'a', token: TOKEN }))).toEqual({
      type: 'auth',
      agent_id: 'a',
      token: TOKEN,
    });
    expect(JSON.parse(authFrame({ agentId: 'a', token: TOKEN, ack: true }))).toMatchObject({ ack: true });
    const parsed = parseWsFrame(ackFrame(['d-1', 'd-2']));
    expect(parsed).toEqual({ kind: 'control', frame: { type: 'ack', delivery_ids: ['d-1', 'd-2'] } });
  });

  it('auth.ok carries the ack terms; malformed terms read as absent, never as an error', () => {
    expect(parseWsFrame('{"type":"auth.ok","ack":{"window":256,"timeout_ms":30000}}')).toEqual({
      kind: 'control',
      frame: { type: 'auth.ok', ack: { window: 256, timeout_ms: 30000 } },
    });
    fc.assert(
      fc.property(fc.jsonValue(), (ack) => {
        const parsed = parseWsFrame(JSON.stringify({ type: 'auth.ok', ack }));
        if (parsed.kind !== 'control' || parsed.frame.type !== 'auth.ok') return false;
        const terms = parsed.frame.ack;
        return (
          terms === undefined ||
          (Number.isInteger(terms.window) && terms.window >= 1 && Number.isInteger(terms.timeout_ms))
        );
      }),
      { seed: 0x61636b, numRuns: 500 },
    );
  });

  it('a malformed ack frame is a ValidationError', () => {
    for (const bad of [
      { type: 'ack' },
      { type: 'ack', delivery_ids: [] },
      { type: 'ack', delivery_ids: [1] },
      { type: 'ack', delivery_ids: [''] },
      { type: 'ack', delivery_ids: Array.from({ length: 1001 }, (_, i) => `d-${i}`) },
    ]) {
      expect(() => parseWsFrame(JSON.stringify(bad))).toThrow(ValidationError);
    }
  });
});
