/**
 * membersChanged: the first set is trusted, a change reported; under 'block'
 * an addition is refused until confirmed, a removal only reported; the sender
 * feeds it the recipient set (without itself).
 */
import { describe, expect, it } from 'vitest';
import { MemberWatch, type MembersChangedEvent } from '../../../packages/sdk/src/messaging/member-watch.js';
import { isCryptoError } from '../../../packages/sdk/src/core/errors/index.js';

describe('MemberWatch', () => {
  it("under 'warn' reports added and removed recipients and moves on", () => {
    const events: MembersChangedEvent[] = [];
    const w = new MemberWatch({ onMembersChanged: (e) => events.push(e) });
    w.observe('c1', ['u1']);
    w.observe('c1', ['u1']);
    w.observe('c1', ['u2', 'ghost']);
    w.observe('c1', ['u2', 'ghost']);
    expect(events).toEqual([
      { conversationId: 'c1', added: ['ghost', 'u2'], removed: ['u1'], blocked: false, unsigned: [] },
    ]);
  });

  it("under 'block' refuses an addition until confirmMembers, reporting it once", () => {
    const events: MembersChangedEvent[] = [];
    const w = new MemberWatch({ policy: 'block', onMembersChanged: (e) => events.push(e) });
    w.observe('c1', ['u1']);
    for (let i = 0; i < 2; i += 1) {
      let caught: unknown;
      try {
        w.observe('c1', ['u1', 'ghost']);
      } catch (err) {
        caught = err;
      }
      expect(isCryptoError(caught, 'MEMBERS_CHANGED')).toBe(true);
    }
    expect(events).toHaveLength(1);
    expect(events[0]!.blocked).toBe(true);
    expect(w.confirmMembers('c1')).toBe(true);
    expect(() => w.observe('c1', ['u1', 'ghost'])).not.toThrow();
    expect(w.confirmMembers('c1')).toBe(false);
  });

  it("under 'block' lets a removal through (reported)", () => {
    const events: MembersChangedEvent[] = [];
    const w = new MemberWatch({ policy: 'block', onMembersChanged: (e) => events.push(e) });
    w.observe('c1', ['u1', 'u2']);
    expect(() => w.observe('c1', ['u1'])).not.toThrow();
    expect(events).toEqual([
      { conversationId: 'c1', added: [], removed: ['u2'], blocked: false, unsigned: [] },
    ]);
  });

  it('observeUnsigned: members outside the signed roster are reported once per set; refused under block until gone', () => {
    const events: MembersChangedEvent[] = [];
    const warn = new MemberWatch({ onMembersChanged: (e) => events.push(e) });
    warn.observeUnsigned('g1', ['ghost']);
    warn.observeUnsigned('g1', ['ghost']);
    warn.observeUnsigned('g1', []);
    warn.observeUnsigned('g1', ['ghost']);
    expect(events).toEqual([
      { conversationId: 'g1', added: ['ghost'], removed: [], blocked: false, unsigned: ['ghost'] },
      { conversationId: 'g1', added: ['ghost'], removed: [], blocked: false, unsigned: ['ghost'] },
    ]);

    const strict = new MemberWatch({ policy: 'block' });
    let caught: unknown;
    try {
      strict.observeUnsigned('g1', ['ghost']);
    } catch (err) {
      caught = err;
    }
    expect(isCryptoError(caught, 'MEMBERS_CHANGED')).toBe(true);
    expect(strict.confirmMembers('g1')).toBe(false); // nothing to confirm: only the owner's roster admits
    expect(() => strict.observeUnsigned('g1', [])).not.toThrow();
  });
});
