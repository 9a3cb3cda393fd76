/**
 * The chaos ledger's verdict: exact counts of lost, duplicated and
 * out-of-order messages, and a summary naming the first ids.
 */
import { describe, expect, it } from 'vitest';
import { ChaosRecorder, messageText } from '../helpers/chaos-recorder.js';

describe('ChaosRecorder', () => {
  it('numbers messages as c<conversation>#<4-digit sequence>', () => {
    expect(messageText(2, 137)).toBe('c2#0137');
  });

  it('a clean run: every message once, in order', () => {
    const r = new ChaosRecorder(2);
    for (let seq = 0; seq < 3; seq++) for (let conv = 0; conv < 2; conv++) r.sent(conv, seq);
    for (let seq = 0; seq < 3; seq++) r.handled(messageText(1, seq));
    for (let seq = 0; seq < 3; seq++) r.handled(messageText(0, seq));
    const report = r.report();
    expect(report.counts).toEqual({ sent: 6, handled: 6, lost: 0, duplicated: 0, outOfOrder: 0 });
    expect(report.summary).toBe('sent 6, handled 6; 0 lost; 0 handled twice or more; 0 out of order');
  });

  it('counts lost, duplicated and out-of-order messages exactly and names them', () => {
    const r = new ChaosRecorder(2);
    for (let seq = 0; seq < 5; seq++) for (let conv = 0; conv < 2; conv++) r.sent(conv, seq);
    for (const seq of [0, 2, 1, 3, 3]) r.handled(messageText(0, seq)); // 4 lost, 1 late, 3 twice (a repeat is not counted as out of order)
    for (const seq of [0, 1, 2, 3, 4]) r.handled(messageText(1, seq));
    r.handled('hello');
    const report = r.report();
    expect(report.counts).toEqual({ sent: 10, handled: 9, lost: 1, duplicated: 1, outOfOrder: 1 });
    expect(report.lost).toEqual(['c0#0004']);
    expect(report.duplicated).toEqual(['c0#0003×2']);
    expect(report.outOfOrder).toEqual(['c0#0001 after c0#0002']);
    expect(report.summary).toBe(
      'sent 10, handled 9; 1 lost (c0#0004); 1 handled twice or more (c0#0003×2); ' +
        '1 out of order (c0#0001 after c0#0002); 1 unexpected texts (hello)',
    );
  });
});
