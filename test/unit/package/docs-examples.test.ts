/**
 * Examples in the docs that CI runs: the block in docs/testing.md must be
 * the example test file, byte for byte; the blocks of docs/llm-agents.md are
 * regions of examples/llm-agent.ts and its kit test; the blocks of
 * docs/observability.md are regions of examples/otel-bot.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string): string => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

describe('docs/testing.md', () => {
  it('includes every recipe of test/integration/testing-kit/cookbook.test.ts verbatim, in order', () => {
    const doc = read('docs/testing.md');
    const file = read('test/integration/testing-kit/cookbook.test.ts');
    const regions = [...file.matchAll(/\/\/ #region (\w+)\n([\s\S]*?)\/\/ #endregion \1\n/g)].map((m) => [
      m[1],
      m[2],
    ]);
    const printed = [...doc.matchAll(/<!-- recipe: (\w+) -->\n```ts\n([\s\S]*?)```/g)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(regions.map(([name]) => name)).toEqual([
      'imports',
      'text',
      'stream',
      'artifact',
      'file',
      'group',
      'webhook',
      'relay',
      'time',
    ]);
    expect(printed).toEqual(regions);
  });

  it('includes test/integration/testing-kit/example.test.ts verbatim', () => {
    const doc = read('docs/testing.md');
    const file = read('test/integration/testing-kit/example.test.ts');
    const marker = 'This is `test/integration/testing-kit/example.test.ts`';
    const after = doc.slice(doc.indexOf(marker));
    const block = /```ts\n([\s\S]*?)```/.exec(after)?.[1];
    expect(doc).toContain(marker);
    expect(block).toBe(file);
  });
});

describe('docs/llm-agents.md', () => {
  it('prints every region of examples/llm-agent.ts verbatim, and the kit test whole', () => {
    const doc = read('docs/llm-agents.md');
    const file = read('examples/llm-agent.ts');
    const regions = [...file.matchAll(/\/\/ #region (\w+)\n([\s\S]*?)\/\/ #endregion \1\n/g)].map((m) => [
      m[1],
      m[2],
    ]);
    const printed = [
      ...doc.matchAll(/<!-- region: examples\/llm-agent\.ts#(\w+) -->\n```ts\n([\s\S]*?)```/g),
    ].map((m) => [m[1], m[2]]);
    expect(regions.map(([name]) => name)).toEqual(['model', 'agent', 'approval', 'turn']);
    expect(printed.map(([name]) => name)).toEqual(['model', 'agent', 'turn', 'approval']);
    expect(Object.fromEntries(printed)).toEqual(Object.fromEntries(regions));
    const kit =
      /<!-- file: test\/integration\/testing-kit\/llm-agent\.test\.ts -->\n```ts\n([\s\S]*?)```/.exec(doc);
    expect(kit?.[1]).toBe(read('test/integration/testing-kit/llm-agent.test.ts'));
  });

  it('has no other TypeScript block', () => {
    const doc = read('docs/llm-agents.md');
    const blocks = doc.match(/^```ts$/gm) ?? [];
    const quoted = doc.match(/^<!-- (?:region|file): .* -->\n```ts$/gm) ?? [];
    expect(blocks.length).toBe(quoted.length);
    expect(blocks.length).toBe(5);
  });
});

describe('docs/observability.md', () => {
  it('prints every region of examples/otel-bot.ts verbatim, and no other TypeScript block', () => {
    const doc = read('docs/observability.md');
    const file = read('examples/otel-bot.ts');
    const regions = [...file.matchAll(/\/\/ #region (\w+)\n([\s\S]*?)\/\/ #endregion \1\n/g)].map((m) => [
      m[1],
      m[2],
    ]);
    const printed = [
      ...doc.matchAll(/<!-- region: examples\/otel-bot\.ts#(\w+) -->\n```ts\n([\s\S]*?)```/g),
    ].map((m) => [m[1], m[2]]);
    expect(regions.map(([name]) => name)).toEqual(['setup', 'shutdown']);
    expect(printed).toEqual(regions);
    expect((doc.match(/^```ts$/gm) ?? []).length).toBe(2);
  });
});
