import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWebhookReceiver,
  type WebhookEvent,
  type WebhookReceiverEvent,
} from '../../../packages/sdk/src/webhook/index.js';
import { messageBody, newDeliveryId, SECRET, signedHeaders } from '../../fixtures/webhook/deliveries.js';
import { FRAMEWORKS, ROUTES, type Running } from './servers.js';

interface ErrorBody {
  error: { code: string; message: string; i18n_key: string; params: Record<string, unknown> };
}

describe.each(Object.keys(FRAMEWORKS))('webhook adapter over real HTTP: %s', (name) => {
  const handled: WebhookEvent[] = [];
  const events: WebhookReceiverEvent[] = [];
  let server: Running;

  beforeAll(async () => {
    const receiver = createWebhookReceiver({
      secret: SECRET,
      handler: (e) => {
        handled.push(e);
      },
      onEvent: (e) => events.push(e),
    });
    server = await FRAMEWORKS[name]!(receiver);
  });
  afterAll(() => server.close());

  const post = (path: string, body: string, headers: Record<string, string>) =>
    fetch(server.url + path, { method: 'POST', body, headers });

  it('answers 200 for a signed delivery after the handler ran, and 200 duplicate for its copy', async () => {
    const body = messageBody();
    const deliveryId = newDeliveryId();
    const headers = await signedHeaders(body, { deliveryId });
    const res = await post(ROUTES.webhook, body, headers);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { delivery_id: deliveryId, status: 'processed' } });
    expect(handled.find((e) => e.deliveryId === deliveryId)?.delivery.metadata.conversation_id).toBe(
      'conv_1',
    );
    const copy = await post(ROUTES.webhook, body, headers);
    expect(copy.status).toBe(200);
    expect(((await copy.json()) as { data: { status: string } }).data.status).toBe('duplicate');
    expect(handled.filter((e) => e.deliveryId === deliveryId)).toHaveLength(1);
  });

  it('answers 401 in the service error shape for a bad signature', async () => {
    const body = messageBody();
    const headers = await signedHeaders(body, { secret: 'some-other-secret-of-at-least-32-bytes' });
    const res = await post(ROUTES.webhook, body, headers);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/json');
    const json = (await res.json()) as ErrorBody;
    expect(json.error).toEqual({
      code: 'WEBHOOK_SIGNATURE_INVALID',
      message: 'The webhook signature does not match.',
      i18n_key: 'errors.webhook_signature_invalid',
      params: {},
    });
  });

  it('answers 400 when a header is missing', async () => {
    const body = messageBody();
    const headers = await signedHeaders(body);
    delete headers['x-service-timestamp'];
    const res = await post(ROUTES.webhook, body, headers);
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.code).toBe('WEBHOOK_HEADER_MISSING');
  });

  it('answers 413 for a body over 1 MB', async () => {
    const body = messageBody(undefined, { padding: 'x'.repeat(1_048_576) });
    const res = await post(ROUTES.webhook, body, await signedHeaders(body));
    expect(res.status).toBe(413);
    expect(((await res.json()) as ErrorBody).error.code).toBe('WEBHOOK_PAYLOAD_TOO_LARGE');
  });

  it('answers 413 for a chunked body over 1 MB without Content-Length', async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 20) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const init = { method: 'POST', body: stream, duplex: 'half', headers: await signedHeaders('{}') };
    const res = await fetch(server.url + ROUTES.webhook, init as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as ErrorBody).error.code).toBe('WEBHOOK_PAYLOAD_TOO_LARGE');
  });

  it('fails with a configuration error that says what to change when a JSON parser consumed the body', async () => {
    const body = messageBody();
    const res = await post(ROUTES.parsed, body, await signedHeaders(body));
    expect(res.status).toBe(500);
    const json = (await res.json()) as ErrorBody;
    expect(json.error.code).toBe('CONFIGURATION_ERROR');
    expect(json.error.message).toMatch(/already (consumed|read|parsed)/);
    if (name.startsWith('express')) expect(json.error.message).toContain('express.json()');
    expect(events.some((e) => e.type === 'configurationError')).toBe(true);
  });

  // Only Express has a raw-body route in these servers; the test is registered for it alone.
  if (name.startsWith('express')) {
    it('uses a body captured by express.raw()', async () => {
      const body = messageBody(new Uint8Array([0xff, 0xfe]));
      const deliveryId = newDeliveryId();
      const res = await post(ROUTES.raw!, body, await signedHeaders(body, { deliveryId }));
      expect(res.status).toBe(200);
      expect(handled.some((e) => e.deliveryId === deliveryId)).toBe(true);
    });
  }
});
