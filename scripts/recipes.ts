/**
 * The recipes of docs/testing.md as one test project per runner (vitest, Jest,
 * node:test), taken from the page mechanically:
 *
 * - `<!-- recipe: NAME -->` before a fenced block: a recipe every runner runs;
 * - `<!-- recipe: NAME (RUNNER) -->`: a block only that runner's test file has
 *   (its imports), in the page's order;
 * - `<!-- recipe file: PATH (RUNNER) -->`: a file of that runner's project
 *   (Jest's config), written as printed;
 * - `<!-- recipe command (RUNNER) -->` before a `sh` block: the command that
 *   runs that runner's project.
 *
 * Each project's test file is `recipes.test.ts`: the blocks in page order.
 * The vitest one is test/integration/testing-kit/cookbook.test.ts byte for byte
 * (a unit test checks it; `npm run docs:recipes -- --cookbook` rewrites it).
 *
 * Usage: tsx scripts/recipes.ts <outdir>   writes <outdir>/<runner>/… and prints
 *        one line per project: `<runner> <tests> <command>`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The runners the recipes run under. */
export const RUNNERS = ['vitest', 'jest', 'node-test'] as const;
/** One of {@link RUNNERS}. */
export type Runner = (typeof RUNNERS)[number];

/** One runner's project: its files (path to text), the command that runs it, how many tests it has. */
export interface RecipeProject {
  runner: Runner;
  files: Record<string, string>;
  command: string;
  tests: number;
  recipes: string[];
}

/** The test file every project has. */
export const TEST_FILE = 'recipes.test.ts';

const marker =
  /^<!-- recipe(?:: (\w+)| file: (\S+)| command)(?: \(([\w-]+)\))? -->\n```(\w+)\n([\s\S]*?)^```$/gm;

/** Reads the projects out of the page's text. Throws on a marker naming no known runner or a runner left without a command. */
export function recipeProjects(markdown: string): RecipeProject[] {
  const projects = new Map<Runner, RecipeProject>(
    RUNNERS.map((runner) => [
      runner,
      { runner, files: { [TEST_FILE]: '' }, command: '', tests: 0, recipes: [] },
    ]),
  );
  for (const match of markdown.matchAll(marker)) {
    const [, name, path, only, lang, body = ''] = match;
    if (only !== undefined && !(RUNNERS as readonly string[]).includes(only)) {
      throw new Error(`docs: recipe marker for an unknown runner "${only}"`);
    }
    const targets = only === undefined ? [...projects.values()] : [projects.get(only as Runner)!];
    for (const project of targets) {
      if (name !== undefined) {
        project.files[TEST_FILE] += (project.files[TEST_FILE] === '' ? '' : '\n') + body;
        project.recipes.push(name);
        project.tests += (body.match(/^ {2}it\(/gm) ?? []).length;
      } else if (path !== undefined) {
        project.files[path] = body;
      } else {
        if (lang !== 'sh' || only === undefined)
          throw new Error('docs: a recipe command is a sh block for one runner');
        project.command = body.trim();
      }
    }
  }
  for (const project of projects.values()) {
    if (project.command === '') throw new Error(`docs: no recipe command for ${project.runner}`);
    if (project.tests === 0) throw new Error(`docs: no recipe with a test for ${project.runner}`);
  }
  return [...projects.values()];
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The repository's copy of the vitest project's test file, run against the sources. */
export const COOKBOOK = 'test/integration/testing-kit/cookbook.test.ts';

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const projects = recipeProjects(readFileSync(join(root, 'docs/testing.md'), 'utf8'));
  const out = process.argv[2];
  if (out === '--cookbook') {
    writeFileSync(join(root, COOKBOOK), projects.find((p) => p.runner === 'vitest')!.files[TEST_FILE]!);
  } else if (out !== undefined) {
    for (const project of projects) {
      const dir = join(out, project.runner);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ type: 'module', private: true })}\n`);
      for (const [path, text] of Object.entries(project.files)) writeFileSync(join(dir, path), text);
      console.log(`${project.runner} ${project.tests} ${project.command}`);
    }
  } else {
    console.error('usage: tsx scripts/recipes.ts <outdir> | --cookbook');
    process.exit(2);
  }
}
