/**
 * The end of a stream as a writer reports it to observers (`onClose`, #25
 * traces): once, with its outcome and counts, on every way a stream ends.
 * A fake transport stands for the service; the stream crypto is real.
 */
import { describe, expect, it } from 'vitest';
import type { AmsError } from '../../../packages/sdk/src/core/errors/base.js';
import { TransportError } from '../../../packages/sdk/src/core/errors/transport-error.js';
import { generateKeys } from '../../../packages/sdk/src/crypto/keys.js';
import { streamCipher } from '../../../packages/sdk/src/crypto/stream/stream-crypto.js';
import {
  createStreamWriter,
  type ObservedStreamEnd,
  type StreamWriter,
} from '../../../packages/sdk/src/agent/streams/writer.js';
import { streamErrorOf, type StreamTransport } from '../../../packages/sdk/src/messaging/stream-transport.js';

/** A transport that accepts everything until `fail()`; `refuse` makes the end or abort fail. */
class FakeTransport implements StreamTransport {
  failure: AmsError | undefined;
  deltas = 0;
  refuse: AmsError | undefined;
  readonly bufferedAmount = 0;
  readonly #listeners: ((e: AmsError) => void)[] = [];
  start(): Promise<void> {
    return Promise.resolve();
  }
  delta(): void {
    this.deltas += 1;
  }
  drained(): Promise<void> {
    return Promise.resolve();
  }
  end(): Promise<void> {
    return this.#answer();
  }
  abort(): Promise<void> {
    return this.#answer();
  }
  onFailure(listener: (error: AmsError) => void): void {
    this.#listeners.push(listener);
  }
  fail(error: AmsError): void {
    this.failure = error;
    for (const l of this.#listeners) l(error);
  }
  #answer(): Promise<void> {
    if (this.refuse === undefined) return Promise.resolve();
    this.fail(this.refuse);
    return Promise.reject(this.refuse);
  }
}

const STREAM_ID = 'str_close_1';

function writer(): { w: StreamWriter; transport: FakeTransport; ends: ObservedStreamEnd[] } {
  const transport = new FakeTransport();
  const ends: ObservedStreamEnd[] = [];
  const { signing } = generateKeys();
  const w = createStreamWriter({
    streamId: STREAM_ID,
    conversationId: 'conv_1',
    cipher: streamCipher(new Uint8Array(32).fill(7), STREAM_ID),
    signing,
    transport,
    options: { coalesceMs: 0 },
    onClose: (end) => void ends.push(end),
  });
  return { w, transport, ends };
}

describe('a stream writer reports its end once, with its outcome and counts', () => {
  it('done: end() relayed; deltas and parts counted, never text', async () => {
    const { w, ends } = writer();
    await w.write('one ');
    await w.reasoning('thinking');
    await w.step({ id: 's1', title: 'Search', status: 'running' });
    const summary = await w.end('two');
    expect(ends).toEqual([{ outcome: 'done', streamId: STREAM_ID, deltas: summary.deltas, parts: 2 }]);
    await expect(w.end()).rejects.toThrow(); // already ended: still one report
    expect(ends).toHaveLength(1);
  });

  it('stopped: abort()', async () => {
    const { w, ends } = writer();
    await w.write('half');
    await w.abort('stop');
    expect(ends).toMatchObject([{ outcome: 'stopped', parts: 0 }]);
  });

  it('timed_out: the service ends it with STREAM_TIMEOUT while nobody writes', () => {
    const { transport, ends } = writer();
    transport.fail(streamErrorOf(STREAM_ID, 'stream_timeout'));
    expect(ends).toEqual([
      { outcome: 'timed_out', streamId: STREAM_ID, deltas: 0, parts: 0, errorType: 'STREAM_TIMEOUT' },
    ]);
  });

  it('failed: the connection lost, then calls that reject report nothing more', async () => {
    const { w, transport, ends } = writer();
    await w.write('before');
    transport.fail(new TransportError({ code: 'TRANSPORT_CLOSED', message: 'lost' }));
    await expect(w.write('after')).rejects.toMatchObject({ code: 'TRANSPORT_CLOSED' });
    await expect(w.abort()).rejects.toMatchObject({ code: 'TRANSPORT_CLOSED' });
    expect(ends).toMatchObject([{ outcome: 'failed', errorType: 'TRANSPORT_CLOSED' }]);
  });

  it('failed: the service refuses the end', async () => {
    const { w, transport, ends } = writer();
    transport.refuse = streamErrorOf(STREAM_ID, 'client_offline');
    await expect(w.end('last')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(ends).toMatchObject([{ outcome: 'failed', errorType: 'NOT_FOUND' }]);
  });
});
