/**
 * Examples in the docs that CI runs: the recipes of docs/testing.md are one
 * project per runner (scripts/recipes.ts; .ci/runners.sh runs them), the vitest
 * one is cookbook.test.ts byte for byte, and the full example block is the
 * example test file; the blocks of docs/llm-agents.md are
 * regions of examples/llm-agent.ts and its kit test; those of docs/chat-sdk.md regions of
 * examples/chat-sdk-bot.ts; those of docs/observability.md regions of examples/otel-bot.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COOKBOOK, recipeProjects, RUNNERS, TEST_FILE } from '../../../scripts/recipes.js';

const read = (path: string): string => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

describe('docs/testing.md', () => {
  it('has one recipe per feature for every runner, and cookbook.test.ts is the vitest project verbatim', () => {
    const projects = recipeProjects(read('docs/testing.md'));
    const features = ['text', 'stream', 'artifact', 'file', 'group', 'webhook', 'relay', 'time'];
    expect(projects.map((p) => [p.runner, p.recipes])).toEqual(
      RUNNERS.map((runner) => [runner, ['imports', 'hooks', ...features]]),
    );
    const vitest = projects.find((p) => p.runner === 'vitest')!;
    // `npm run docs:recipes -- --cookbook` rewrites the file from the page.
    expect(read(COOKBOOK)).toBe(vitest.files[TEST_FILE]);
    expect(Object.keys(projects.find((p) => p.runner === 'jest')!.files).sort()).toEqual([
      'jest.config.mjs',
      'jest.transform.mjs',
      TEST_FILE,
    ]);
    // Every runner imports its own hooks, and only its own.
    expect(vitest.files[TEST_FILE]).toContain("from 'vitest'");
    expect(projects.find((p) => p.runner === 'node-test')!.files[TEST_FILE]).not.toMatch(/vitest|jest/);
  });

  it('marks every TypeScript block of the cookbook as a recipe', () => {
    const doc = read('docs/testing.md');
    const cookbook = doc.slice(doc.indexOf('## Cookbook'), doc.indexOf('\n## Time\n'));
    const blocks = cookbook.match(/^```ts$/gm) ?? [];
    const marked = cookbook.match(/^<!-- recipe: [\w ()-]+ -->\n```ts$/gm) ?? [];
    expect(marked.length).toBe(blocks.length);
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

describe('docs/chat-sdk.md', () => {
  it('prints every region of examples/chat-sdk-bot.ts verbatim, in order', () => {
    const doc = read('docs/chat-sdk.md');
    const file = read('examples/chat-sdk-bot.ts');
    const regions = [...file.matchAll(/\/\/ #region (\w+)\n([\s\S]*?)\/\/ #endregion \1\n/g)].map((m) => [
      m[1],
      m[2],
    ]);
    const printed = [
      ...doc.matchAll(/<!-- region: examples\/chat-sdk-bot\.ts#(\w+) -->\n```ts\n([\s\S]*?)```/g),
    ].map((m) => [m[1], m[2]]);
    expect(regions.map(([name]) => name)).toEqual(['setup', 'handlers', 'start']);
    expect(printed).toEqual(regions);
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
