import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ghostFingerprints, ghostKeyWarning } from '../../../packages/sdk/src/messaging/ghost-keys.js';

const r = (id: string, fingerprint: string) => ({ id, fingerprint });

describe('ghost keys', () => {
  it('lists the fingerprints under the recipient id that it does not hold, once each, in order', () => {
    const own = new Set(['aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb']);
    const list = [
      r('me', 'aaaaaaaaaaaaaaaa'),
      r('other', 'cccccccccccccccc'),
      r('me', 'dddddddddddddddd'),
      r('me', 'bbbbbbbbbbbbbbbb'),
      r('me', 'dddddddddddddddd'),
      r('me', 'eeeeeeeeeeeeeeee'),
    ];
    expect(ghostFingerprints(list, 'me', own)).toEqual(['dddddddddddddddd', 'eeeeeeeeeeeeeeee']);
    expect(ghostFingerprints(list, 'other', new Set(['cccccccccccccccc']))).toEqual([]);
    const opened = { recipients: list, senderId: 's', conversationId: 'c', messageId: 'm' };
    expect(ghostKeyWarning(opened, 'me', own)).toEqual({
      kind: 'ghost_key',
      senderId: 's',
      conversationId: 'c',
      messageId: 'm',
      fingerprints: ['dddddddddddddddd', 'eeeeeeeeeeeeeeee'],
      ownFingerprints: ['aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb'],
    });
    expect(
      ghostKeyWarning({ ...opened, recipients: [r('me', 'aaaaaaaaaaaaaaaa')] }, 'me', own),
    ).toBeUndefined();
  });

  it('reports exactly the listed fingerprints of the recipient that are not its own', () => {
    const fp = fc.constantFrom(
      '0000000000000000',
      '1111111111111111',
      '2222222222222222',
      '3333333333333333',
    );
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: fc.constantFrom('me', 'you'), fingerprint: fp })),
        fc.uniqueArray(fp),
        (list, own) => {
          const ghosts = ghostFingerprints(list, 'me', new Set(own));
          const expected = [...new Set(list.filter((e) => e.id === 'me').map((e) => e.fingerprint))].filter(
            (f) => !own.includes(f),
          );
          expect(ghosts).toEqual(expected);
        },
      ),
    );
  });
});
