import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../../../packages/sdk/src/core/limits.js';
import * as objects from '../../../../packages/sdk/src/core/limits/objects.js';
import * as units from '../../../../packages/sdk/src/core/limits/units.js';
import * as webhook from '../../../../packages/sdk/src/core/limits/webhook.js';

// The webhook and object rows are defined one constant per export (so that
// `./webhook` bundles only what it uses); LIMITS must hold each of them under
// the same name and value.
describe('the per-area limit modules', () => {
  for (const [area, mod] of Object.entries({ webhook, objects })) {
    it(`${area}: every constant is a LIMITS row with the same value`, () => {
      const entries = Object.entries(mod);
      expect(entries.length).toBeGreaterThan(0);
      for (const [name, value] of entries) {
        expect(Object.keys(LIMITS), name).toContain(name);
        expect(LIMITS[name as keyof typeof LIMITS], name).toBe(value);
      }
    });
  }

  it('time units are the usual ones, in milliseconds', () => {
    expect({ ...units }).toEqual({
      SECOND_MS: 1000,
      MINUTE_MS: 60_000,
      HOUR_MS: 3_600_000,
      DAY_MS: 86_400_000,
    });
  });
});
