/**
 * forEachPiece: every piece in order with back-pressure (a pending promise
 * pauses the Readable), the first error of the callback or of the body
 * rejects (and destroys the body), and plain async iterables work too.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { forEachPiece } from '../../../packages/sdk/src/files/body-pieces.js';

const bytes = (n: number): Uint8Array => Uint8Array.of(n);

describe('forEachPiece', () => {
  it('delivers every piece of a Readable in order, pausing while a promise is pending', async () => {
    const body = Readable.from(
      Array.from({ length: 50 }, (_, i) => bytes(i)),
      { objectMode: false },
    );
    const seen: number[] = [];
    let pausedSeen = false;
    await forEachPiece(body, (piece) => {
      seen.push(...piece);
      if (seen.length % 7 !== 0) return undefined;
      return new Promise<void>((resolve) =>
        setTimeout(() => {
          pausedSeen ||= body.isPaused();
          resolve();
        }, 1),
      );
    });
    expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(pausedSeen).toBe(true);
  });

  it('waits for the promise of the last piece before resolving', async () => {
    let settled = false;
    await forEachPiece(
      Readable.from([bytes(1)], { objectMode: false }),
      () => new Promise<void>((resolve) => setTimeout(() => ((settled = true), resolve()), 5)),
    );
    expect(settled).toBe(true);
  });

  it('rejects with what the callback throws and destroys the body', async () => {
    const body = Readable.from([bytes(1), bytes(2), bytes(3)], { objectMode: false });
    const failure = new Error('bad piece');
    await expect(
      forEachPiece(body, (piece) => {
        if (piece[0] === 2) throw failure;
        return undefined;
      }),
    ).rejects.toBe(failure);
    expect(body.destroyed).toBe(true);
  });

  it('rejects with a rejected promise of the callback', async () => {
    const failure = new Error('write failed');
    await expect(
      forEachPiece(Readable.from([bytes(1), bytes(2)], { objectMode: false }), () => Promise.reject(failure)),
    ).rejects.toBe(failure);
  });

  it('rejects when the body fails', async () => {
    const failure = new Error('socket reset');
    const body = new Readable({
      read() {
        this.push(bytes(1));
        this.destroy(failure);
      },
    });
    await expect(forEachPiece(body, () => undefined)).rejects.toBe(failure);
  });

  it('reads a plain async iterable with for await', async () => {
    async function* pieces(): AsyncGenerator<Uint8Array> {
      yield bytes(1);
      yield bytes(2);
    }
    const seen: number[] = [];
    await forEachPiece(pieces(), (piece) => {
      seen.push(...piece);
      return Promise.resolve();
    });
    expect(seen).toEqual([1, 2]);
  });
});
