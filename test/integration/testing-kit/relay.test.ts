/**
 * world.relay (issue #27): every client of the world through a relay that
 * records every byte and shows the service never saw a plaintext marker in
 * any encoding; inject. (Drop and reset against a bot: the cookbook's relay recipe.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestWorld,
  encodingsOf,
  TestWorldError,
  type Relay,
  type TestWorld,
} from '../../../packages/dev/src/testing/index.js';

let world: TestWorld;
let relay: Relay;
beforeAll(async () => {
  world = await createTestWorld({ relay: true });
  relay = world.relay!;
  world.agent.on('message.new', (m) => m.reply(`echo: ${m.text ?? ''}`).then(() => undefined));
});
afterAll(() => world.close());

describe('world.relay', () => {
  it('carries every client: the marker crossed only sealed, never in clear', async () => {
    const before = relay.records.length;
    await world.sendAsUser('the launch code is 0000-MARKER');
    expect((await world.waitForReply({ kind: 'text' })).text).toBe('echo: the launch code is 0000-MARKER');
    expect(relay.records.length).toBeGreaterThan(before);
    expect(new Set(relay.records.map((r) => r.channel))).toEqual(
      new Set(['http-request', 'http-response', 'ws-up', 'ws-down']),
    );
    relay.assertNoPlaintext('0000-MARKER');
  });

  it('finds a marker sent in clear as text, hex or base64 at any alignment', async () => {
    const marker = 'visible-to-the-service';
    for (const [i, encoded] of encodingsOf(new TextEncoder().encode(marker)).entries()) {
      const prefix = 'x'.repeat(i % 3);
      await fetch(`${relay.url}/health`, { method: 'POST', body: prefix + encoded.bytes.toString('latin1') });
      const err = (() => {
        try {
          relay.assertNoPlaintext(marker);
        } catch (e) {
          return e as Error;
        }
        return undefined;
      })();
      expect(err, encoded.name).toBeInstanceOf(TestWorldError);
      expect(err?.message).toContain(`as ${encoded.name}`);
      expect(err?.message).not.toContain(marker);
      (relay.records as unknown[]).length = 0; // forget it for the next encoding
    }
    expect(() => relay.assertNoPlaintext('short')).toThrow(RangeError);
  });

  it('injects a frame of its own to the clients', () => {
    expect(relay.inject({ type: 'relay.hello' })).toBe(relay.sockets.length);
    expect(relay.sockets.length).toBeGreaterThan(0);
  });
});
