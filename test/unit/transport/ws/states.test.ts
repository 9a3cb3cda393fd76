import { describe, expect, it } from 'vitest';
import {
  canTransition,
  isFinalState,
  WS_STATES,
  WS_TRANSITIONS,
} from '../../../../packages/sdk/src/transport/ws/index.js';
import { createStateMachine } from '../../../../packages/sdk/src/transport/ws/states.js';

describe('state machine', () => {
  it('has an explicit table over every state; closed and fatal are final', () => {
    expect(Object.keys(WS_TRANSITIONS).sort()).toEqual([...WS_STATES].sort());
    expect(WS_STATES.filter(isFinalState)).toEqual(['closed', 'fatal']);
    for (const from of WS_STATES) {
      if (!isFinalState(from)) expect(canTransition(from, 'closed')).toBe(true);
    }
    expect(canTransition('idle', 'open')).toBe(false);
    expect(canTransition('connecting', 'open')).toBe(false);
    expect(canTransition('waiting', 'waiting')).toBe(false);
    expect(canTransition('fatal', 'connecting')).toBe(false);
  });

  it('refuses moves outside the table and reports each move', () => {
    const moves: string[] = [];
    const sm = createStateMachine((from, to) => moves.push(`${from}>${to}`));
    expect(sm.to('open')).toBe(false);
    expect(sm.to('connecting')).toBe(true);
    expect(sm.to('authenticating')).toBe(true);
    expect(sm.to('open')).toBe(true);
    expect(sm.to('waiting')).toBe(true);
    expect(sm.to('connecting')).toBe(true);
    expect(sm.to('fatal')).toBe(true);
    expect(sm.to('closed')).toBe(false);
    expect(sm.state).toBe('fatal');
    expect(moves).toEqual([
      'idle>connecting',
      'connecting>authenticating',
      'authenticating>open',
      'open>waiting',
      'waiting>connecting',
      'connecting>fatal',
    ]);
  });
});
