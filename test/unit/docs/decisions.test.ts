import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDecisions, gapSection } from '../../../scripts/collect-decisions.js';

const docs = join(import.meta.dirname, '..', '..', '..', 'docs');

describe('docs/decisions.md', () => {
  it('is the current collection of every "Gap decisions" section (run npm run docs:decisions)', () => {
    expect(readFileSync(join(docs, 'decisions.md'), 'utf8')).toBe(buildDecisions(docs));
  });

  it('collects a section up to the next heading of the same level', () => {
    const md = '# T\n\n## Gap decisions\n\n1. a\n\n### Sub\n\nb\n\n## Next\n\nc\n';
    expect(gapSection(md)).toBe('1. a\n\n#### Sub\n\nb');
    expect(gapSection('# T\n\nno gaps here\n')).toBeUndefined();
  });
});

describe('gapSection with several sections', () => {
  it('collects every "Gap decisions" heading of a document, titled after the first', () => {
    const md = '# T\n\n## Gap decisions\n\n1. a\n\n## Other\n\nx\n\n### Gap decisions (engine)\n\nD1. b\n';
    expect(gapSection(md)).toBe('1. a\n\n### Gap decisions (engine)\n\nD1. b');
  });
});
