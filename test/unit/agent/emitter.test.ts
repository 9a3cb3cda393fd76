import { describe, expect, it } from 'vitest';
import { TypedEmitter } from '../../../packages/sdk/src/agent/emitter.js';

interface Events {
  ping: [n: number];
  other: [];
}

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('typed emitter', () => {
  it('emitSerial awaits listeners in order and returns what they threw', async () => {
    const em = new TypedEmitter<Events>(() => undefined);
    const log: string[] = [];
    const boom = new Error('boom');
    em.on('ping', async (n) => {
      await flush();
      log.push(`a${n}`);
    });
    em.on('ping', () => {
      throw boom;
    });
    em.on('ping', (n) => void log.push(`c${n}`));
    const failures = await em.emitSerial('ping', 7);
    expect(log).toEqual(['a7', 'c7']);
    expect(failures).toEqual([{ error: boom }]);
  });

  it('emit never lets a throw or a rejection escape; both reach onListenerError', async () => {
    const seen: [unknown, string][] = [];
    const em = new TypedEmitter<Events>((e, name) => seen.push([e, String(name)]));
    const sync = new Error('sync');
    const async = new Error('async');
    em.on('ping', () => {
      throw sync;
    });
    em.on('ping', () => Promise.reject(async));
    expect(() => em.emit('ping', 1)).not.toThrow();
    await flush();
    expect(seen).toEqual([
      [sync, 'ping'],
      [async, 'ping'],
    ]);
  });

  it('once, off and listenerCount', async () => {
    const em = new TypedEmitter<Events>(() => undefined);
    const calls: string[] = [];
    const keep = (): void => void calls.push('keep');
    const one = (): void => void calls.push('once');
    em.on('other', keep);
    em.once('other', one);
    expect(em.listenerCount('other')).toBe(2);
    await em.emitSerial('other');
    em.emit('other');
    expect(calls).toEqual(['keep', 'once', 'keep']);
    em.off('other', keep);
    expect(em.listenerCount('other')).toBe(0);
    em.emit('other');
    expect(calls).toHaveLength(3);
    expect(() => em.on('other', 42 as never)).toThrow(TypeError);
  });

  it('a listener added while emitting does not see the current event', async () => {
    const em = new TypedEmitter<Events>(() => undefined);
    const seen: number[] = [];
    em.on('ping', () => em.on('ping', (n) => void seen.push(n)));
    await em.emitSerial('ping', 1);
    expect(seen).toEqual([]);
    await em.emitSerial('ping', 2);
    expect(seen).toEqual([2]);
  });
});
