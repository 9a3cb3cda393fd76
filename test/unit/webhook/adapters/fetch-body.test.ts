import { describe, expect, it } from 'vitest';
import { createFetchHandler } from '../../../../packages/sdk/src/webhook/fetch.js';
import { createWebhookReceiver } from '../../../../packages/sdk/src/webhook/index.js';
import { SECRET } from '../../../fixtures/webhook/deliveries.js';

const MB = 1024 * 1024;

/** A request body of `chunks` pieces of 1 MB that records how far it was read. */
function body(chunks: number): {
  stream: ReadableStream<Uint8Array>;
  pulled: () => number;
  cancelled: () => boolean;
} {
  const piece = new Uint8Array(MB);
  let pulled = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled === chunks) return controller.close();
        pulled++;
        controller.enqueue(piece);
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => pulled, cancelled: () => cancelled };
}

function request(stream: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) {
  return { headers: new Headers(headers), body: stream, bodyUsed: false };
}

describe('fetch adapter: oversized bodies (issue #11)', () => {
  const handle = createFetchHandler(createWebhookReceiver({ secret: SECRET, handler: () => undefined }));

  it('reads a 3 MB body to its end before answering 413', async () => {
    const b = body(3);
    const res = await handle(request(b.stream));
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('WEBHOOK_PAYLOAD_TOO_LARGE');
    expect(b.pulled()).toBe(3);
    expect(b.cancelled()).toBe(false);
  });

  it('stops reading and cancels past 16 MB', async () => {
    const b = body(40);
    const res = await handle(request(b.stream));
    expect(res.status).toBe(413);
    expect(b.pulled()).toBe(17);
    expect(b.cancelled()).toBe(true);
  });

  it('answers at once when Content-Length is over 16 MB', async () => {
    const b = body(40);
    const res = await handle(request(b.stream, { 'content-length': String(16 * MB + 1) }));
    expect(res.status).toBe(413);
    expect(b.pulled()).toBe(0);
    expect(b.cancelled()).toBe(true);
  });
});
