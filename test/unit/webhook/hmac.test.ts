/**
 * The node:crypto HMAC backend builds HMAC-SHA256 from two one-shot hashes
 * for short messages and streams longer ones through createHmac: both paths,
 * and the WebCrypto backend, must equal node:crypto's createHmac byte for byte.
 */
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resolveHmacBackend, type HmacBackend } from '../../../packages/sdk/src/webhook/hmac.js';
import { ONE_SHOT_MAX_BYTES } from '../../../packages/sdk/src/webhook/hmac.node.js';
import { webHmacBackend } from '../../../packages/sdk/src/webhook/hmac.web.js';

const node: HmacBackend = resolveHmacBackend('node');
const prefix = fc.string({ unit: fc.constantFrom(...'0123456789.-_abcXYZ'.split('')), maxLength: 142 });
/** Bodies of any length up to the one-shot limit, and around it. */
const body = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc
    .integer({ min: ONE_SHOT_MAX_BYTES - 200, max: ONE_SHOT_MAX_BYTES + 50 })
    .chain((n) => fc.uint8Array({ minLength: n, maxLength: n })),
);
/** Keys shorter than, equal to and longer than the 64-byte block. */
const secret = fc.oneof(
  fc.uint8Array({ minLength: 32, maxLength: 64 }),
  fc.uint8Array({ minLength: 65, maxLength: 200 }),
);

function expected(key: Uint8Array, p: string, b: Uint8Array): Uint8Array {
  return new Uint8Array(createHmac('sha256', key).update(p, 'latin1').update(b).digest());
}

describe('HMAC backends', () => {
  it('node is synchronous, web is not', () => {
    expect(node.name).toBe('node');
    expect(node.sync).toBe(true);
    expect(resolveHmacBackend().name).toBe('node');
    expect(resolveHmacBackend('web')).toBe(webHmacBackend);
    expect(webHmacBackend.sync).toBe(false);
  });

  it('node:crypto backend equals createHmac on both of its paths, and verifies only the exact MAC', () => {
    fc.assert(
      fc.property(secret, prefix, body, fc.nat(), (key, p, b, flip) => {
        const k = node.importKey(key);
        if (k instanceof Promise) throw new Error('the node backend must be synchronous');
        const mac = expected(key, p, b);
        expect(node.sign(k, p, b)).toEqual(mac);
        expect(node.verify(k, p, b, mac)).toBe(true);
        const wrong = mac.slice();
        wrong[flip % 32] = wrong[flip % 32]! ^ (1 << (flip % 8));
        expect(node.verify(k, p, b, wrong)).toBe(false);
        expect(node.verify(k, p, b, mac.subarray(0, 31))).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('a key used for a long message still signs short ones correctly (scratch reuse)', () => {
    const key = new Uint8Array(40).fill(9);
    const k = node.importKey(key) as Awaited<ReturnType<HmacBackend['importKey']>>;
    const long = new Uint8Array(ONE_SHOT_MAX_BYTES).fill(1);
    const short = new Uint8Array([1, 2, 3]);
    expect(node.sign(k, '1.a.', long)).toEqual(expected(key, '1.a.', long));
    expect(node.sign(k, '1.a.', short)).toEqual(expected(key, '1.a.', short));
    expect(node.sign(k, '12.b.', new Uint8Array())).toEqual(expected(key, '12.b.', new Uint8Array()));
  });

  it('WebCrypto backend equals createHmac', async () => {
    await fc.assert(
      fc.asyncProperty(secret, prefix, fc.uint8Array({ maxLength: 300 }), async (key, p, b) => {
        const k = await webHmacBackend.importKey(key);
        const mac = expected(key, p, b);
        expect(await webHmacBackend.sign(k, p, b)).toEqual(mac);
        expect(await webHmacBackend.verify(k, p, b, mac)).toBe(true);
      }),
      { numRuns: 50 },
    );
  });
});
