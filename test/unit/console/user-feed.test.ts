import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseUserFeedEvent } from '../../../packages/dev/src/console/user-feed.js';

describe('parseUserFeedEvent', () => {
  it('takes the three event types of the user feed', () => {
    for (const type of ['snapshot', 'agent_created', 'requests_changed']) {
      const e = parseUserFeedEvent(JSON.stringify({ type, user_id: 'u1', agent_id: 'a1', at: 'x' }));
      expect(e?.type).toBe(type);
    }
  });

  it('refuses other types, a missing user id, non-JSON and non-strings', () => {
    for (const data of [
      JSON.stringify({ type: 'queued', user_id: 'u1' }),
      JSON.stringify({ type: 'agent_created' }),
      'data: {',
      'null',
      42,
      undefined,
    ]) {
      expect(parseUserFeedEvent(data)).toBeUndefined();
    }
  });

  it('never throws, whatever the data (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.anything()), (data) => {
        const e = parseUserFeedEvent(data);
        if (e !== undefined) expect(typeof e.user_id).toBe('string');
      }),
    );
  });
});
