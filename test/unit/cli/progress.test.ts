import { describe, expect, it } from 'vitest';
import { PROGRESS_DELAY_MS, withProgress, type Schedule } from '../../../packages/dev/src/cli/progress.js';
import { captureIo } from './helpers.js';

/** A scheduler that records its callbacks; tests fire them explicitly. */
function manualSchedule() {
  const pending: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  const schedule: Schedule = (fn, ms) => {
    const entry = { fn, ms, cancelled: false };
    pending.push(entry);
    return () => (entry.cancelled = true);
  };
  return { schedule, pending };
}

describe('withProgress', () => {
  it('prints the progress line once the delay passes while the work is pending', async () => {
    const io = captureIo();
    const { schedule, pending } = manualSchedule();
    let finish!: (v: number) => void;
    const result = withProgress(
      io,
      'ams x',
      'waiting for y',
      new Promise<number>((r) => (finish = r)),
      schedule,
    );
    expect(pending[0]!.ms).toBe(PROGRESS_DELAY_MS);
    pending[0]!.fn();
    expect(io.err).toBe('ams x: waiting for y…\n');
    finish(7);
    expect(await result).toBe(7);
    expect(pending[0]!.cancelled).toBe(true);
  });

  it('prints nothing for fast work and cancels its timer, also on failure', async () => {
    const io = captureIo();
    const { schedule, pending } = manualSchedule();
    expect(await withProgress(io, 'ams x', 'y', Promise.resolve(1), schedule)).toBe(1);
    await expect(withProgress(io, 'ams x', 'y', Promise.reject(new Error('boom')), schedule)).rejects.toThrow(
      'boom',
    );
    expect(pending.every((p) => p.cancelled)).toBe(true);
    expect(io.err).toBe('');
  });
});
