/**
 * The committed API reports (packages/<package>/api/*.api.md) are the public
 * surface of every entry of both packages. A change to the surface changes a
 * report, so it shows up as a reviewed diff: after an intended change, run
 * `npm run api:report` and commit the result.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiEntries, buildApiReports } from '../../../scripts/api-report.js';

const root = join(import.meta.dirname, '..', '..', '..');
let reports: Map<string, string>;

beforeAll(() => {
  reports = buildApiReports();
}, 120_000);

describe('API report', () => {
  it('covers every public entry of both packages, and nothing else', () => {
    const expected = apiEntries().map((e) => e.report);
    expect([...reports.keys()].sort()).toEqual([...expected].sort());
    const committed = ['packages/sdk/api', 'packages/dev/api'].flatMap((dir) =>
      readdirSync(join(root, dir)).map((f) => join(dir, f)),
    );
    expect(committed.sort()).toEqual([...expected].sort());
  });

  it('the committed reports match the sources (run npm run api:report after an intended change)', () => {
    for (const [file, text] of reports) {
      expect(existsSync(join(root, file)), file).toBe(true);
      expect(readFileSync(join(root, file), 'utf8'), file).toBe(text);
    }
  });

  it('keeps the root entry at most 80 names, with no zod type and no …Deps type in its report', () => {
    const rootReport = reports.get('packages/sdk/api/index.api.md')!;
    const count = Number(/^(\d+) names/m.exec(rootReport)?.[1]);
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThanOrEqual(80);
    expect(rootReport).not.toMatch(/\bZod[A-Z]\w*|\$ZodType|z\.infer/);
    expect(rootReport).not.toMatch(/\w+Deps\b/);
  });
});
