/**
 * An independent implementation of envelope v1 written from docs/envelope.md
 * alone (no imports from src/): @noble for the curves, hashes and HKDF,
 * node:crypto only for AES-256-GCM. The vector tests check that it and the SDK
 * agree, which is what "another team could implement it from the doc" means.
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';

const enc = new TextEncoder();
const cat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));
const u16 = (n: number): Uint8Array => Uint8Array.of(n >> 8, n & 0xff);
const str8 = (s: string): Uint8Array => cat(Uint8Array.of(enc.encode(s).length), enc.encode(s));

export function gcmSeal(key: Uint8Array, nonce: Uint8Array, pt: Uint8Array, aad: Uint8Array): Uint8Array {
  const c = createCipheriv('aes-256-gcm', key, nonce);
  c.setAAD(aad);
  return cat(c.update(pt), c.final(), c.getAuthTag());
}

function gcmOpen(
  key: Uint8Array,
  nonce: Uint8Array,
  sealed: Uint8Array,
  aad: Uint8Array,
): Uint8Array | undefined {
  try {
    const d = createDecipheriv('aes-256-gcm', key, nonce);
    d.setAAD(aad);
    d.setAuthTag(sealed.subarray(sealed.length - 16));
    return cat(d.update(sealed.subarray(0, sealed.length - 16)), d.final());
  } catch {
    return undefined;
  }
}

export interface RefSealInput {
  senderId: string;
  signingPrivate: Uint8Array;
  conversationId: string;
  messageId: string;
  createdAt: string;
  recipients: { id: string; publicKey: Uint8Array }[];
  plaintext: Uint8Array;
  ephemeralPrivate: Uint8Array;
  contentKey: Uint8Array;
  nonce: Uint8Array;
}

export const refFingerprint = (pk: Uint8Array): Uint8Array => sha256(pk).subarray(0, 8);

/** KEK_i from the shared secret, E, R_i, H and i. */
export function refKek(
  ss: Uint8Array,
  ephPub: Uint8Array,
  pub: Uint8Array,
  h: Uint8Array,
  i: number,
): Uint8Array {
  return hkdf(sha256, ss, cat(ephPub, pub), cat(enc.encode('ams/envelope/v1/wrap'), h, u16(i)), 32);
}

/** Seal per the document; returns the raw envelope. */
export function refSeal(x: RefSealInput): Uint8Array {
  const ephPub = x25519.getPublicKey(x.ephemeralPrivate);
  const header = cat(
    enc.encode('AMSE'),
    Uint8Array.of(1, 0, 1, 0),
    str8(x.senderId),
    str8(x.conversationId),
    str8(x.messageId),
    enc.encode(x.createdAt),
    ephPub,
    u16(x.recipients.length),
    ...x.recipients.map((r) => cat(str8(r.id), refFingerprint(r.publicKey))),
  );
  const h = sha256(header);
  const wraps = x.recipients.map((r, i) =>
    gcmSeal(
      refKek(x25519.getSharedSecret(x.ephemeralPrivate, r.publicKey), ephPub, r.publicKey, h, i),
      new Uint8Array(12),
      x.contentKey,
      h,
    ),
  );
  const body = cat(header, ...wraps, x.nonce, gcmSeal(x.contentKey, x.nonce, x.plaintext, h));
  const sig = ed25519.sign(cat(enc.encode('ams/envelope/v1/signature'), sha256(body)), x.signingPrivate);
  return cat(body, sig);
}

type RefResult =
  { payload: unknown } | { code: 'INVALID_ENVELOPE' } | { code: 'DECRYPT_FAILURE'; reason: string };

/** Open per the document, with the checks in the documented order. */
export function refOpen(
  wire: string,
  recipientId: string,
  keys: { privateKey: Uint8Array; publicKey: Uint8Array }[],
  senderPublic: Uint8Array,
): RefResult {
  const invalid = { code: 'INVALID_ENVELOPE' } as const;
  const fail = (reason: string) => ({ code: 'DECRYPT_FAILURE', reason }) as const;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(wire) || wire.length % 4 !== 0) return invalid;
  const b = new Uint8Array(Buffer.from(wire, 'base64'));
  if (Buffer.from(b).toString('base64') !== wire) return invalid;
  const dec = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let o = 8;
  const need = (n: number) => {
    if (o + n > b.length) throw new Error('short');
  };
  const id = (): string => {
    need(1);
    const n = b[o++]!;
    need(n);
    if (n === 0) throw new Error('empty');
    return dec.decode(b.subarray(o, (o += n)));
  };
  let parsed;
  try {
    if (b.length < 8 || dec.decode(b.subarray(0, 4)) !== 'AMSE') return invalid;
    if (b[4] !== 1 || b[5] !== 0 || b[6] !== 1 || b[7] !== 0) return invalid;
    const senderId = id();
    id();
    id();
    need(24);
    const createdAt = dec.decode(b.subarray(o, (o += 24)));
    if (new Date(createdAt).toISOString() !== createdAt) return invalid;
    need(34);
    const eph = b.subarray(o, (o += 32));
    const k = (b[o]! << 8) | b[o + 1]!;
    o += 2;
    if (k < 1 || k > 1024) return invalid;
    const entries = Array.from({ length: k }, () => {
      const rid = id();
      need(8);
      return { rid, fp: b.subarray(o, (o += 8)) };
    });
    const headerEnd = o;
    need(k * 48 + 12 + 16 + 64);
    parsed = { senderId, eph, entries, headerEnd };
  } catch {
    return invalid;
  }
  const { eph, entries, headerEnd } = parsed;
  const body = b.subarray(0, b.length - 64);
  const msg = cat(enc.encode('ams/envelope/v1/signature'), sha256(body));
  if (!ed25519.verify(b.subarray(b.length - 64), msg, senderPublic, { zip215: false }))
    return fail('signature');
  const i = entries.findIndex(
    (e) => e.rid === recipientId && keys.some((kp) => Buffer.from(refFingerprint(kp.publicKey)).equals(e.fp)),
  );
  if (i < 0) return fail('no_wrap');
  const kp = keys.find((x) => Buffer.from(refFingerprint(x.publicKey)).equals(entries[i]!.fp))!;
  const h = sha256(b.subarray(0, headerEnd));
  let ck: Uint8Array | undefined;
  try {
    const wrap = b.subarray(headerEnd + i * 48, headerEnd + i * 48 + 48);
    ck = gcmOpen(
      refKek(x25519.getSharedSecret(kp.privateKey, eph), eph, kp.publicKey, h, i),
      new Uint8Array(12),
      wrap,
      h,
    );
  } catch {
    ck = undefined;
  }
  if (ck?.length !== 32) return fail('unwrap');
  const nonceAt = headerEnd + entries.length * 48;
  const pt = gcmOpen(ck, b.subarray(nonceAt, nonceAt + 12), b.subarray(nonceAt + 12, b.length - 64), h);
  if (pt === undefined) return fail('aead');
  try {
    const payload: unknown = JSON.parse(dec.decode(pt));
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return fail('parse');
    return { payload };
  } catch {
    return fail('parse');
  }
}
