/**
 * The docs agree with each other and with the package on the points a
 * newcomer tripped over (issue 12, "Docs that agree"): one key directory,
 * the webhook guide opening with the Agent, its answer table telling the
 * Agent's 200 from the plain receiver's 500, no leftover text from before the
 * client shipped, and a changelog with an Unreleased section.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url);
const read = (file: string): string => readFileSync(new URL(file, root), 'utf8');
const guides = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync(new URL('docs/', root))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('docs that agree', () => {
  it('one key directory: no guide puts an agent key store directly in $AMS_KEY_DIR', () => {
    for (const file of guides.filter((f) => f !== 'CHANGELOG.md')) {
      // (The changelog tells the old layout's history.)
      const text = read(file);
      expect(text, file).not.toMatch(/\$AMS_KEY_DIR\/keys\.json/);
      expect(text, file).not.toMatch(/FileKeyStore\(\{\s*directory:\s*(?:process\.env\.)?AMS_KEY_DIR\b/);
    }
    expect(read('README.md')).toContain('$AMS_KEY_DIR/<agent id>/keys.json');
  });

  it('the webhook guide opens with the Agent in webhook mode; the low-level receiver comes second', () => {
    const doc = read('docs/webhooks.md');
    const headings = [...doc.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    expect(headings[0]).toMatch(/^The Agent in webhook mode/);
    expect(headings[1]).toBe('The low-level receiver');
  });

  it("the webhook guide's answer table says the Agent acknowledges a throwing handler (200)", () => {
    const row = read('docs/webhooks.md')
      .split('\n')
      .find((l) => l.startsWith('| Handler threw |'));
    expect(row).toBeDefined();
    expect(row).toContain('500 `HANDLER_FAILED`');
    expect(row).toContain('the Agent in webhook mode answers 200');
  });

  it('no guide still waits for the client to be exported', () => {
    for (const file of guides) expect(read(file), file).not.toMatch(/once the lead|exports src\/client/);
  });

  it('the changelog keeps an Unreleased section', () => {
    expect(read('CHANGELOG.md')).toMatch(/^## \[Unreleased\]$/m);
  });
});
