/**
 * The console's stream handling (packages/dev/src/console/streams.ts, run
 * here on the same WebCrypto and @noble/hashes it uses in the page): text
 * grows only once the agent's signature covers it; a delta or an abort a key
 * holder seals is refused (`bad_signature`) before any of it is shown.
 */
import { describe, expect, it } from 'vitest';
import { ConsoleStreams, type StreamView } from '../../../packages/dev/src/console/streams.js';
import { defaultSyncBackend } from '../../../packages/sdk/src/crypto/backend/node-default.js';
import { concatBytes, utf8 } from '../../../packages/sdk/src/core/encoding.js';
import {
  frameStreamDelta,
  signStream,
  streamCipher,
  StreamChain,
} from '../../../packages/sdk/src/crypto/stream/stream-crypto.js';

const backend = defaultSyncBackend();
const seed = new Uint8Array(32).fill(9);
const signing = { publicKey: backend.ed25519PublicKey(seed), privateKey: seed };
const key = new Uint8Array(32).fill(3);
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const ID = 's1';
const cipher = streamCipher(key, ID);

function page(parts?: number): { streams: ConsoleStreams; log: string[] } {
  const log: string[] = [];
  const view: StreamView = {
    started: () => log.push('started'),
    grew: (_id, text, shown) =>
      log.push(parts === undefined ? `grew ${text}` : `grew ${text} ${shown.map((p) => p.type).join(',')}`),
    ended: (_id, text) => log.push(`ended ${text}`),
    failed: (_id, why, text) => log.push(`failed ${why.split(':')[0]!} [${text}]`),
  };
  const streams = new ConsoleStreams({
    open: () =>
      Promise.resolve({
        conversationId: 'c1',
        senderId: 'agent',
        messageId: ID,
        payload: {
          type: 'stream.open',
          v: 2,
          stream_id: ID,
          key: b64(key),
          ...(parts === undefined ? {} : { parts }),
        },
      }),
    signingKey: () => Promise.resolve(signing.publicKey),
    view,
  });
  streams.receive({
    type: 'stream.start',
    stream_id: ID,
    conversation_id: 'c1',
    sender_id: 'agent',
    wire_envelope: 'AAAA',
  });
  return { streams, log };
}

/** The agent's deltas for `pieces`, a checkpoint where `signed` says. */
function deltas(pieces: readonly string[], signed: readonly boolean[]): Record<string, unknown>[] {
  const chain = new StreamChain(cipher.chainStart);
  return pieces.map((p, i) => {
    const hash = chain.add(i + 1, utf8(p));
    const sig = signed[i] === true ? signStream(signing, 'checkpoint', ID, i + 1, hash) : undefined;
    return {
      type: 'stream.delta',
      stream_id: ID,
      seq: i + 1,
      ciphertext: b64(cipher.sealDelta(i + 1, frameStreamDelta(utf8(p), sig))),
    };
  });
}

/** Waits (real time, up to 5 s) until the page logged `n` entries: WebCrypto answers asynchronously. */
async function logged(log: readonly string[], n: number): Promise<void> {
  for (let waited = 0; log.length < n && waited < 5_000; waited += 5)
    await new Promise((r) => setTimeout(r, 5));
}

describe('ConsoleStreams (stream v2 in the page)', () => {
  it('grows only when a checkpoint covers the text, and ends verified', async () => {
    const { streams, log } = page();
    const [d1, d2] = deltas(['Hel', 'lo'], [false, true]);
    streams.receive(d1!);
    streams.receive(d2!);
    const chain = new StreamChain(cipher.chainStart);
    chain.add(1, utf8('Hel'));
    const h = chain.add(2, utf8('lo'));
    streams.receive({
      type: 'stream.end',
      stream_id: ID,
      final_seq: 2,
      transcript_hash: b64(h),
      signature: b64(signStream(signing, 'end', ID, 2, h)),
    });
    await logged(log, 3);
    // One growth for both deltas: delta 1 alone (unsigned) was never shown.
    expect(log).toEqual(['started', 'grew Hello', 'ended Hello']);
  });

  it("refuses a key holder's delta before showing it", async () => {
    const { streams, log } = page();
    const forged = {
      type: 'stream.delta',
      stream_id: ID,
      seq: 1,
      ciphertext: b64(cipher.sealDelta(1, frameStreamDelta(utf8('FORGED')))),
    };
    streams.receive(forged);
    streams.receive(deltas(['a', 'b'], [false, true])[1]!);
    await logged(log, 2);
    expect(log).toEqual(['started', 'failed bad_signature []']);
  });

  it("refuses a key holder's abort: not shown as aborted, her reason not shown", async () => {
    const { streams, log } = page();
    streams.receive({
      type: 'stream.abort',
      stream_id: ID,
      ciphertext: b64(
        cipher.sealAbort(0, concatBytes(new Uint8Array(64).fill(1), utf8('go to evil.example'))),
      ),
    });
    await logged(log, 2);
    expect(log).toEqual(['started', 'failed bad_signature []']);
  });

  it("shows the agent's signed abort with its reason", async () => {
    const { streams, log } = page();
    const h = new StreamChain(cipher.chainStart).hash;
    const reason = utf8('cancelled');
    const sig = signStream(signing, 'aborted', ID, 0, h, undefined, reason);
    streams.receive({
      type: 'stream.abort',
      stream_id: ID,
      ciphertext: b64(cipher.sealAbort(0, concatBytes(sig, reason))),
    });
    await logged(log, 2);
    expect(log).toEqual(['started', 'failed aborted []']);
  });

  it('reads typed parts when the signed start says parts (#26), and shows the text without the records', async () => {
    const { streams, log } = page(1);
    const record = '\u001e{"type":"step","id":"a","status":"running"}\n';
    for (const d of deltas(['Hi ', record], [true, true])) streams.receive(d);
    await logged(log, 3);
    expect(log).toEqual(['started', 'grew Hi  text', 'grew Hi  text,step']);
  });
});
