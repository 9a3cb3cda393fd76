/**
 * The stream construction (docs/envelope.md, "Streamed replies"): the
 * published test vectors recomputed with an independent implementation
 * (node:crypto HMAC / AES-GCM / SHA-256 and @noble/curves Ed25519), checked
 * against the SDK's code, and found verbatim in the document.
 */
import { createCipheriv, createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import {
  signStreamEnd,
  streamCipher,
  streamOpenerAsync,
  StreamTranscript,
  verifyStreamEnd,
} from '../../../packages/sdk/src/crypto/stream/stream-crypto.js';
import { portableBackend } from '../../../packages/sdk/src/crypto/backend/portable.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { defaultSyncBackend } from '../../../packages/sdk/src/crypto/backend/node-default.js';

interface Vectors {
  stream_key: string;
  stream_id: string;
  signing_seed: string;
  signing_public_key: string;
  deltas: { seq: number; plaintext: string; sealed: string }[];
  final_seq: number;
  transcript_hash: string;
  end_signature: string;
  abort: { reason: string; sealed: string };
}

const v = JSON.parse(
  readFileSync(new URL('../../fixtures/stream/vectors.json', import.meta.url), 'utf8'),
) as Vectors;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};
const sha256 = (...parts: Uint8Array[]) =>
  new Uint8Array(createHash('sha256').update(Buffer.concat(parts)).digest());
const label = (s: string) => Buffer.from(s, 'utf8');

describe('stream crypto v1 test vectors', () => {
  const key = bytes(v.stream_key);
  const sid = sha256(label(v.stream_id));
  const dk = createHmac('sha256', key)
    .update(Buffer.concat([label('ams/stream/v1/delta'), sid, Buffer.of(1)]))
    .digest();

  it('seals each delta as AES-256-GCM(DK, u32(0) ‖ u64(seq), aad = label ‖ S ‖ u64(seq)), independently recomputed', () => {
    const cipher = streamCipher(key, v.stream_id);
    for (const d of v.deltas) {
      const nonce = Buffer.concat([Buffer.alloc(4), u64(d.seq)]);
      const gcm = createCipheriv('aes-256-gcm', dk, nonce);
      gcm.setAAD(Buffer.concat([label('ams/stream/v1/delta'), sid, u64(d.seq)]));
      const expected = Buffer.concat([gcm.update(label(d.plaintext)), gcm.final(), gcm.getAuthTag()]);
      expect(hex(expected)).toBe(d.sealed);
      expect(hex(cipher.sealDelta(d.seq, label(d.plaintext)))).toBe(d.sealed);
      expect(Buffer.from(cipher.openDelta(d.seq, bytes(d.sealed))!).toString('utf8')).toBe(d.plaintext);
    }
  });

  it('hashes the transcript T = SHA-256(label ‖ S ‖ Σ u64(i) ‖ u32(|C_i|) ‖ C_i) in one pass', () => {
    const parts: Uint8Array[] = [label('ams/stream/v1/transcript'), sid];
    for (const d of v.deltas) {
      const len = Buffer.alloc(4);
      len.writeUInt32BE(bytes(d.sealed).length);
      parts.push(u64(d.seq), len, bytes(d.sealed));
    }
    expect(hex(sha256(...parts))).toBe(v.transcript_hash);
    const ours = new StreamTranscript(v.stream_id);
    for (const d of v.deltas) ours.add(d.seq, bytes(d.sealed));
    expect(hex(ours.hash)).toBe(v.transcript_hash);
  });

  it('gives the same transcript on a backend without incremental hashing', () => {
    const s = defaultSyncBackend().sync;
    const { sha256Incremental: _incremental, ...plain } = s;
    const t = new StreamTranscript(v.stream_id, plain);
    for (const d of v.deltas) t.add(d.seq, bytes(d.sealed));
    expect(hex(t.hash)).toBe(v.transcript_hash);
    expect(() => t.add(4, bytes(v.deltas[0]!.sealed))).toThrow(RangeError);
  });

  it('signs the end over label ‖ S ‖ u64(final seq) ‖ T_n with Ed25519', () => {
    const message = Buffer.concat([
      label('ams/stream/v1/end'),
      sid,
      u64(v.final_seq),
      bytes(v.transcript_hash),
    ]);
    const seed = bytes(v.signing_seed);
    expect(hex(ed25519.getPublicKey(seed))).toBe(v.signing_public_key);
    expect(hex(ed25519.sign(message, seed))).toBe(v.end_signature);
    const pair = { publicKey: bytes(v.signing_public_key), privateKey: seed };
    expect(hex(signStreamEnd(pair, v.stream_id, v.final_seq, bytes(v.transcript_hash)))).toBe(
      v.end_signature,
    );
  });

  it('seals the abort reason under nonce kind 1 and seq n + 1', () => {
    const nonce = Buffer.concat([Buffer.of(0, 0, 0, 1), u64(v.final_seq + 1)]);
    const gcm = createCipheriv('aes-256-gcm', dk, nonce);
    gcm.setAAD(Buffer.concat([label('ams/stream/v1/abort'), sid, u64(v.final_seq + 1)]));
    const expected = Buffer.concat([gcm.update(label(v.abort.reason)), gcm.final(), gcm.getAuthTag()]);
    expect(hex(expected)).toBe(v.abort.sealed);
    const cipher = streamCipher(key, v.stream_id);
    expect(hex(cipher.sealAbort(v.final_seq, label(v.abort.reason)))).toBe(v.abort.sealed);
  });

  it('docs/envelope.md publishes these exact vectors', () => {
    const doc = readFileSync(new URL('../../../docs/envelope.md', import.meta.url), 'utf8');
    for (const value of [
      v.stream_key,
      v.transcript_hash,
      v.end_signature,
      v.abort.sealed,
      ...v.deltas.map((d) => d.sealed),
    ])
      expect(doc).toContain(value);
  });
});

describe('what the construction catches', () => {
  const key = bytes(v.stream_key);
  const cipher = streamCipher(key, v.stream_id);
  const sealed2 = bytes(v.deltas[1]!.sealed);

  it('a delta opened under another seq, another stream or another key fails', () => {
    expect(cipher.openDelta(1, sealed2)).toBeUndefined();
    expect(streamCipher(key, 'other-stream').openDelta(2, sealed2)).toBeUndefined();
    expect(streamCipher(new Uint8Array(32), v.stream_id).openDelta(2, sealed2)).toBeUndefined();
    const flipped = sealed2.slice();
    flipped[0]! ^= 1;
    expect(cipher.openDelta(2, flipped)).toBeUndefined();
  });

  it('an end over fewer deltas, another transcript or another signer fails', () => {
    const t = new StreamTranscript(v.stream_id);
    for (const d of v.deltas) t.add(d.seq, bytes(d.sealed));
    const end = {
      streamId: v.stream_id,
      finalSeq: v.final_seq,
      transcriptHash: bytes(v.transcript_hash),
      signature: bytes(v.end_signature),
    };
    const pub = bytes(v.signing_public_key);
    expect(verifyStreamEnd(pub, end, t)).toBe('ok');
    expect(verifyStreamEnd(pub, { ...end, finalSeq: 2 }, t)).toBe('truncated');
    expect(verifyStreamEnd(pub, { ...end, transcriptHash: new Uint8Array(32) }, t)).toBe('transcript');
    expect(verifyStreamEnd(ed25519.getPublicKey(new Uint8Array(32)), end, t)).toBe('signature');
  });

  it('refuses a transcript out of order and a key of the wrong size', () => {
    const t = new StreamTranscript(v.stream_id);
    expect(() => t.add(2, sealed2)).toThrow(RangeError);
    expect(() => streamCipher(new Uint8Array(16), v.stream_id)).toThrow(RangeError);
  });
});

describe('stream opener on asynchronous primitives (the browser console)', () => {
  it('opens the published vectors with WebCrypto and refuses a wrong seq or abort position', async () => {
    const opener = await streamOpenerAsync(bytes(v.stream_key), v.stream_id, portableBackend.async);
    for (const d of v.deltas) {
      const plain = await opener.openDelta(d.seq, bytes(d.sealed));
      expect(Buffer.from(plain!).toString('utf8')).toBe(d.plaintext);
      expect(await opener.openDelta(d.seq + 1, bytes(d.sealed))).toBeUndefined();
    }
    const reason = await opener.openAbort(v.deltas.length, bytes(v.abort.sealed));
    expect(Buffer.from(reason!).toString('utf8')).toBe(v.abort.reason);
    expect(await opener.openAbort(v.deltas.length + 1, bytes(v.abort.sealed))).toBeUndefined();
    await expect(streamOpenerAsync(new Uint8Array(16), v.stream_id, portableBackend.async)).rejects.toThrow(
      RangeError,
    );
  });

  it('a transcript on @noble/hashes (no node:crypto) gives the published hash', () => {
    const t = new StreamTranscript(v.stream_id, {
      sha256: (d) => nobleSha256(d),
      sha256Incremental: () => nobleSha256.create(),
    });
    for (const d of v.deltas) t.add(d.seq, bytes(d.sealed));
    expect(hex(t.hash)).toBe(v.transcript_hash);
  });
});
