/**
 * Every relative link in README.md, docs/*.md and examples/README.md
 * resolves for someone who installed the package: the target file is in the
 * packed file list (`npm pack --dry-run`), and an `#anchor` names a heading
 * of the target (GitHub's heading ids). Links inside code are not links.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The files `npm pack` would publish (paths relative to the package root). */
function packedFiles(): Set<string> {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const out = execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const [report] = JSON.parse(out) as { files: { path: string }[] }[];
  return new Set((report?.files ?? []).map((f) => f.path));
}

/** Markdown without fenced code blocks and inline code spans. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading ids of a Markdown file (duplicates get -1, -2 …). */
export function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  const text = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of text.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const plain = m[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/[*`]/g, '');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/** Relative link targets of a Markdown file: `[text](target)` and `[label]: target`. */
export function relativeLinks(markdown: string): string[] {
  const text = prose(markdown);
  const targets = [
    ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
    ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]!),
  ];
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

const documents = [
  'README.md',
  'examples/README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('links in README.md, docs/ and examples/README.md', () => {
  let packed: Set<string>;
  beforeAll(() => {
    packed = packedFiles();
  });

  it('are all in the package', () => {
    for (const doc of documents) expect(packed, `${doc} is not published`).toContain(doc);
  });

  it.each(documents)('%s: every relative link and anchor resolves in the package', (doc) => {
    const problems: string[] = [];
    for (const link of relativeLinks(readFileSync(join(root, doc), 'utf8'))) {
      const [path = '', anchor] = link.split('#', 2);
      const target = path === '' ? doc : normalize(join(dirname(doc), decodeURIComponent(path)));
      if (!packed.has(target)) {
        problems.push(`${link}: ${target} is not in the package`);
        continue;
      }
      if (anchor !== undefined && anchor !== '' && target.endsWith('.md')) {
        const ids = headingIds(readFileSync(join(root, target), 'utf8'));
        if (!ids.has(decodeURIComponent(anchor).toLowerCase()))
          problems.push(`${link}: no heading #${anchor}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('finds links and GitHub heading ids as GitHub does', () => {
    expect(
      relativeLinks('[a](docs/x.md#y) `[b](c.md)` [c](https://e.org)\n[d]: ./z.md\n```\n[e](f.md)\n```\n'),
    ).toEqual(['docs/x.md#y', './z.md']);
    expect([
      ...headingIds('# `ams keygen`\n## Corruption and recovery\n## A, b & c?\n## A, b & c?\n'),
    ]).toEqual(['ams-keygen', 'corruption-and-recovery', 'a-b--c', 'a-b--c-1']);
  });
});
