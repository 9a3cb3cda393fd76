/**
 * docs/ai-sdk.md prints examples/ai-sdk-agent.ts's regions and its kit test
 * (examples/ai-sdk-agent.test.ts, beside it) verbatim, and no other
 * TypeScript block: what a reader copies is what CI runs.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string): string => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

describe('docs/ai-sdk.md', () => {
  it('prints every region of examples/ai-sdk-agent.ts verbatim, in order, and the kit test whole', () => {
    const doc = read('docs/ai-sdk.md');
    const file = read('examples/ai-sdk-agent.ts');
    const regions = [...file.matchAll(/\/\/ #region (\w+)\n([\s\S]*?)\/\/ #endregion \1\n/g)].map((m) => [
      m[1],
      m[2],
    ]);
    const printed = [
      ...doc.matchAll(/<!-- region: examples\/ai-sdk-agent\.ts#(\w+) -->\n```ts\n([\s\S]*?)```/g),
    ].map((m) => [m[1], m[2]]);
    expect(regions.map(([name]) => name)).toEqual(['imports', 'model', 'agent']);
    expect(printed).toEqual(regions);
    const kit = /<!-- file: examples\/ai-sdk-agent\.test\.ts -->\n```ts\n([\s\S]*?)```/.exec(doc);
    expect(kit?.[1]).toBe(read('examples/ai-sdk-agent.test.ts'));
  });

  it('has no other TypeScript block', () => {
    const doc = read('docs/ai-sdk.md');
    const blocks = doc.match(/^```ts$/gm) ?? [];
    const quoted = doc.match(/^<!-- (?:region|file): .* -->\n```ts$/gm) ?? [];
    expect(blocks.length).toBe(quoted.length);
    expect(blocks.length).toBe(4);
  });
});
