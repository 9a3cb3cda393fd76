/**
 * Typed stream parts (#26) against a hostile service: the relay that carries
 * a stream with a plan step, reasoning, a tool call and its result and a
 * source sees ciphertext, never a part kind, a tool name, an input, a title,
 * a URL or the text, and no frame gains a field that would tell the kinds
 * apart; a relay that alters the delta carrying a tool call gets the stream
 * failed (`tampered`) with that call never shown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamEnded, StreamFailure, StreamPartUpdate } from '../../packages/sdk/src/client/index.js';
import { startSecurityWorld, type SecurityWorld } from './world.js';

type Frame = Record<string, unknown>;
const isFrame = (f: unknown): f is Frame =>
  typeof f === 'object' && f !== null && String((f as Frame)['type']).startsWith('stream.');

/** Every field a stream frame has under the service interface (stream v2 adds none). */
const STREAM_FRAME_FIELDS = new Set([
  'type',
  'stream_id',
  'conversation_id',
  'sender_id',
  'wire_envelope',
  'seq',
  'ciphertext',
  'final_seq',
  'transcript_hash',
  'signature',
]);

let world: SecurityWorld;
const parts: StreamPartUpdate[] = [];
const ends: StreamEnded[] = [];
const errors: StreamFailure[] = [];
beforeAll(async () => {
  world = await startSecurityWorld();
  world.user.client.on('streamPart', (p) => parts.push(p));
  world.user.client.on('streamEnd', (e) => ends.push(e));
  world.user.client.on('streamError', (e) => errors.push(e));
});
afterAll(() => world.close());

function waitFor<T>(list: T[], pick: (t: T) => boolean): Promise<T> {
  return new Promise((resolve) => {
    const poll = (): void => {
      const hit = list.find(pick);
      if (hit !== undefined) resolve(hit);
      else setImmediate(poll);
    };
    poll();
  });
}

describe('typed stream parts through a hostile relay', () => {
  it('the relay sees no part kind, tool name, input, title, URL or text, and no new frame field', async () => {
    const secrets = [
      'Zebrafish plan',
      'lookup_quokka',
      'platypus-input',
      'wombat.example',
      'numbat',
      'Axolotl',
    ];
    const w = await world.agent.stream(world.conversationId, { coalesceMs: 0 });
    await w.step({ id: 'step-1', title: 'Zebrafish plan', status: 'running' });
    await w.reasoning('Axolotl thinking');
    await w.toolCall({ callId: 'call-9', name: 'lookup_quokka', input: { q: 'platypus-input' } });
    await w.toolResult({ callId: 'call-9', output: ['numbat'] });
    await w.source({ id: 'src-1', url: 'https://wombat.example/a', title: 'Source' });
    await w.step({ id: 'step-1', status: 'done' });
    await w.end('The answer is numbat.');
    const end = await waitFor(ends, (e) => e.streamId === w.streamId);
    expect(end.parts.map((p) => p.type)).toEqual(['step', 'reasoning', 'tool', 'source', 'text']);

    const crossed = world.relay.seen.map((s) => s.text).join('\n');
    for (const secret of secrets) expect(crossed).not.toContain(secret);
    for (const kind of [
      'tool-call',
      'tool-result',
      'reasoning',
      '"step"',
      '"source"',
      'call_id',
      'call-9',
      'step-1',
    ])
      expect(crossed).not.toContain(kind);
    const streamFrames = world.relay.seen
      .filter((s) => s.channel.startsWith('ws'))
      .map((s) => JSON.parse(s.text) as unknown)
      .filter(isFrame)
      .filter((f) => f['stream_id'] === w.streamId);
    expect(streamFrames.length).toBeGreaterThan(6);
    for (const f of streamFrames)
      for (const field of Object.keys(f)) expect(STREAM_FRAME_FIELDS).toContain(field);
  });

  it('a relay that alters the delta carrying a tool call fails the stream (tampered); the call is never shown', async () => {
    let seq = 0;
    world.relay.onServerFrame = (f) => {
      if (!isFrame(f) || f['type'] !== 'stream.delta' || f['seq'] !== seq) return f;
      const bytes = Buffer.from(String(f['ciphertext']), 'base64');
      bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
      return { ...f, ciphertext: bytes.toString('base64') };
    };
    const w = await world.agent.stream(world.conversationId, { coalesceMs: 0 });
    await w.write('before ');
    seq = 2; // the next delta: the tool call
    await w.toolCall({ callId: 'evil', name: 'transfer_funds', input: { to: 'mallory' } });
    await w.end().catch(() => undefined);
    const failure = await waitFor(errors, (e) => e.streamId === w.streamId);
    world.relay.onServerFrame = undefined;
    expect(failure.reason).toBe('tampered');
    expect(failure.parts.some((p) => p.type === 'tool')).toBe(false);
    expect(parts.some((p) => p.streamId === w.streamId && p.part.type === 'tool')).toBe(false);
  });
});
