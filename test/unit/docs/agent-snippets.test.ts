/**
 * Every `Agent` snippet in the README and the guides is one a newcomer can
 * copy: its `error` and `fatal` listeners log the error itself (message,
 * `cause` and stack), not only `err.code`, and none installs its own
 * SIGINT/SIGTERM handler (the Agent's graceful shutdown, on by default for
 * `connect()`, drains running handlers; a hand-written `agent.close()` on
 * SIGINT raced it and never exited).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url);
const docs = ['README.md', ...readdirSync(new URL('docs/', root)).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith('.md'),
);

/** The ```ts blocks of a Markdown file that construct an Agent. */
function agentSnippets(file: string): string[] {
  const text = readFileSync(new URL(file, root), 'utf8');
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)]
    .map((m) => m[1]!)
    .filter((b) => b.includes('new Agent('));
}

const snippets = docs.flatMap((file) =>
  agentSnippets(file).map((code, i) => ({ name: `${file} #${i + 1}`, code })),
);

describe('Agent snippets in the docs', () => {
  it('there are some (README, getting started, agent guide, webhook guide)', () => {
    const files = new Set(snippets.map((s) => s.name.split(' ')[0]));
    for (const f of ['README.md', 'docs/getting-started.md', 'docs/agent.md', 'docs/webhooks.md'])
      expect(files).toContain(f);
  });

  it.each(snippets)('$name logs the error itself, not only its code', ({ code }) => {
    for (const m of code.matchAll(/\.on\('(?:error|fatal)', \((\w+)[^)]*\) =>([^\n]*)/g)) {
      const [, name, body] = m;
      expect(body, m[0]).toMatch(new RegExp(`\\b${name}\\b(?!\\.)`));
    }
  });

  it.each(snippets)('$name leaves SIGINT and SIGTERM to the Agent', ({ code }) => {
    expect(code).not.toMatch(/process\.(?:on|once)\('SIG(?:INT|TERM)'/);
  });
});
