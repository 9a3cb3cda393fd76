/**
 * Builds docs/decisions.md: every "Gap decisions" section of docs/*.md in one
 * place, so a reader finds every choice we made where the service interface
 * says "not shown". Run `npm run docs:decisions`; a test fails when the file
 * is out of date.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const docs = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs');

/**
 * Extracts the bodies of every heading named "Gap decisions…" (any level from
 * 2 to 4) of a markdown text, each up to the next heading of the same or a
 * higher level, joined in document order.
 */
export function gapSection(markdown: string): string | undefined {
  const lines = markdown.split('\n');
  const sections: string[] = [];
  for (let start = 0; start < lines.length; start++) {
    const heading = /^(#{2,4})\s+(Gap decisions\b.*)$/i.exec(lines[start]!);
    if (heading === null) continue;
    const level = heading[1]!.length;
    let end = lines.length;
    for (let i = start + 1; i < lines.length; i++) {
      const m = /^(#+)\s/.exec(lines[i]!);
      if (m && m[1]!.length <= level) {
        end = i;
        break;
      }
    }
    // Nested headings move down under the per-document heading.
    const body = lines
      .slice(start + 1, end)
      .map((l) => {
        const m = /^(#+)(\s.*)$/.exec(l);
        return m ? '#'.repeat(Math.min(6, 3 + m[1]!.length - level)) + m[2] : l;
      })
      .join('\n')
      .trim();
    const title = heading[2]!.trim();
    sections.push(sections.length === 0 && /^gap decisions$/i.test(title) ? body : `### ${title}\n\n${body}`);
    start = end - 1;
  }
  return sections.length === 0 ? undefined : sections.join('\n\n');
}

/** Builds the text of docs/decisions.md from the docs folder. */
export function buildDecisions(dir: string = docs): string {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f !== 'decisions.md' && f !== 'README.md')
    .sort();
  const parts = [
    '# Gap decisions, all in one place',
    '',
    'The service interface leaves some things "not shown". Each choice we made is recorded beside the',
    'design it belongs to; this page collects them all. It is generated from the "Gap decisions" section of',
    'every document by `npm run docs:decisions` (a test checks it is current), so edit the source document,',
    'not this page.',
  ];
  for (const f of files) {
    const section = gapSection(readFileSync(join(dir, f), 'utf8'));
    if (section === undefined) continue;
    const title = /^#\s+(.+)$/m.exec(readFileSync(join(dir, f), 'utf8'))?.[1] ?? f;
    parts.push('', `## ${title} ([${f}](${f}))`, '', section);
  }
  return parts.join('\n') + '\n';
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(join(docs, 'decisions.md'), buildDecisions());
  console.log('docs/decisions.md written');
}
