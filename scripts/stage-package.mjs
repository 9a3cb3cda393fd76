// Copies the files a package ships but does not own into its folder before
// `npm pack` (each package's prepack runs it; CI runs it before packing with
// --ignore-scripts): the guides (docs/*.md and their images, so the links of
// the README resolve for an npm user) and CHANGELOG.md, and for the SDK the
// repository's README.md. The copies are git-ignored.
// Usage: node scripts/stage-package.mjs <package folder>
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const dir = resolve(process.argv[2] ?? '.');
const sdk = basename(dir) === 'sdk';
rmSync(join(dir, 'docs'), { recursive: true, force: true });
mkdirSync(join(dir, 'docs', 'images'), { recursive: true });
for (const name of readdirSync(join(root, 'docs'))) {
  if (name.endsWith('.md')) cpSync(join(root, 'docs', name), join(dir, 'docs', name));
}
for (const name of readdirSync(join(root, 'docs', 'images'))) {
  if (name.endsWith('.png')) cpSync(join(root, 'docs', 'images', name), join(dir, 'docs', 'images', name));
}
cpSync(join(root, 'CHANGELOG.md'), join(dir, 'CHANGELOG.md'));
if (sdk) cpSync(join(root, 'README.md'), join(dir, 'README.md'));
if (!existsSync(join(dir, 'README.md'))) throw new Error(`${dir} has no README.md`);
console.log(`stage-package: docs, CHANGELOG.md${sdk ? ', README.md' : ''} copied into ${dir}`);
