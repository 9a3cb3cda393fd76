/**
 * Checks that the imports of src/ run one way: no import cycle anywhere, and
 * no import against the layer table of docs/architecture.md (the one place
 * the layers are declared). `npm run lint` runs it; it prints each problem
 * and exits 1 when there is one.
 *
 * Every import counts, `import type` and `export … from` included: a cycle of
 * types is still a knot for the reader. Imports of packages (`zod`, `node:*`)
 * are not edges.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** One row of the layer table. */
export interface Layer {
  /** The layer's name, as other rows' "may import" column names it. */
  readonly name: string;
  /** Repo-relative folders (ending in `/`) or files the layer owns. */
  readonly paths: readonly string[];
  /** The layers this one may import (its own files are always allowed). */
  readonly mayImport: readonly string[];
}

/** Each source file (repo-relative, `/`-separated) and the source files it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** The source folders of the workspace's packages. */
const PACKAGE_SOURCES = [join(root, 'packages', 'sdk', 'src'), join(root, 'packages', 'dev', 'src')];

const toPosix = (path: string): string => path.split(sep).join('/');

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(path));
    else if (/\.(ts|tsx|mts|cts)$/.test(entry.name)) found.push(path);
  }
  return found;
}

/** The file a relative specifier names (`./x.js` is `./x.ts` in the source), if it exists. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  const base = join(dirname(from), specifier);
  const candidates = [base.replace(/\.(m|c)?js$/, '.$1ts'), base, `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

/**
 * The import graph of every TypeScript file under `dirs` (by default both
 * packages' `src/`): relative imports only, static and dynamic. Paths are
 * relative to `base`.
 */
export function readImportGraph(
  dirs: string | readonly string[] = PACKAGE_SOURCES,
  base: string = root,
): ImportGraph {
  const graph = new Map<string, string[]>();
  const files = (typeof dirs === 'string' ? [dirs] : dirs).flatMap((dir) => sourceFiles(dir)).sort();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolveSpecifier(file, fileName);
      if (target !== undefined) targets.add(toPosix(relative(base, target)));
    }
    graph.set(toPosix(relative(base, file)), [...targets].sort());
  }
  return graph;
}

/**
 * Every import cycle of `graph`: its strongly connected components of more
 * than one file (and files that import themselves), each sorted, in a stable
 * order.
 */
export function findCycles(graph: ImportGraph): string[][] {
  // Tarjan's algorithm, iterative so a deep graph cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      if (component.length > 1 || edges.includes(frame.node)) cycles.push(component.sort());
    }
  }
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

const cells = (line: string): string[] =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());

/**
 * The layer table of a markdown text: the first table after the heading
 * `## Layers`, with the columns `Layer`, `Paths` and `May import` (layer
 * names, comma-separated, or `—`). Backticks are dropped.
 *
 * @throws Error when there is no such table.
 */
export function parseLayerTable(markdown: string): Layer[] {
  const lines = markdown.split('\n');
  const heading = lines.findIndex((l) => /^##\s+Layers\s*$/.test(l));
  if (heading < 0) throw new Error('No "## Layers" heading.');
  const start = lines.findIndex((l, i) => i > heading && l.trim().startsWith('|'));
  if (start < 0) throw new Error('No table under "## Layers".');
  const header = cells(lines[start]!).map((c) => c.toLowerCase());
  const col = (name: string): number => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`The layer table has no "${name}" column.`);
    return i;
  };
  const [name, paths, mayImport] = [col('layer'), col('paths'), col('may import')];
  const layers: Layer[] = [];
  for (let i = start + 2; i < lines.length && lines[i]!.trim().startsWith('|'); i++) {
    const row = cells(lines[i]!).map((c) => c.replace(/\x60/g, '')); // drop backticks
    const list = (cell: string | undefined): string[] =>
      (cell ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '' && s !== '—' && s !== '-');
    layers.push({ name: row[name]!, paths: list(row[paths]), mayImport: list(row[mayImport]) });
  }
  return layers;
}

/**
 * What is wrong with the table itself: a name used twice, a "may import"
 * naming an unknown layer or one further down the table (each row may only
 * import rows above it, so the table cannot declare a cycle), a layer
 * without paths.
 */
export function tableProblems(layers: readonly Layer[]): string[] {
  const problems: string[] = [];
  const position = new Map<string, number>();
  layers.forEach((layer, i) => {
    if (position.has(layer.name)) problems.push(`layer "${layer.name}" is declared twice`);
    position.set(layer.name, i);
    if (layer.paths.length === 0) problems.push(`layer "${layer.name}" owns no paths`);
  });
  layers.forEach((layer, i) => {
    for (const dep of layer.mayImport) {
      const at = position.get(dep);
      if (at === undefined) problems.push(`layer "${layer.name}" may import "${dep}", which is no layer`);
      else if (at >= i)
        problems.push(`layer "${layer.name}" may import "${dep}", which is not above it in the table`);
    }
  });
  return problems;
}

/** The layer that owns `file`: the one with the longest matching path. */
export function layerOf(file: string, layers: readonly Layer[]): Layer | undefined {
  let best: { layer: Layer; length: number } | undefined;
  for (const layer of layers) {
    for (const path of layer.paths) {
      const owns = path.endsWith('/') ? file.startsWith(path) : file === path;
      if (owns && (best === undefined || path.length > best.length)) best = { layer, length: path.length };
    }
  }
  return best?.layer;
}

/**
 * Every problem of `graph` under `layers`: the table's own, files in no
 * layer, imports a layer may not make, and import cycles.
 */
export function checkLayers(graph: ImportGraph, layers: readonly Layer[]): string[] {
  const problems = tableProblems(layers);
  for (const [file, targets] of graph) {
    const from = layerOf(file, layers);
    if (from === undefined) {
      problems.push(`${file} belongs to no layer (add its folder to the layer table)`);
      continue;
    }
    for (const target of targets) {
      const to = layerOf(target, layers);
      if (to === undefined || to === from || from.mayImport.includes(to.name)) continue;
      problems.push(
        `${file} (${from.name}) imports ${target} (${to.name}): "${from.name}" may not import "${to.name}"`,
      );
    }
  }
  for (const cycle of findCycles(graph)) {
    problems.push(`import cycle of ${cycle.length} file(s): ${cycle.join(', ')}`);
  }
  return problems;
}

/** The layers declared in docs/architecture.md. */
export function readLayers(file: string = join(root, 'docs', 'architecture.md')): Layer[] {
  return parseLayerTable(readFileSync(file, 'utf8'));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const graph = readImportGraph();
  const problems = checkLayers(graph, readLayers());
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`check-layers: ${problems.length} problem(s); the layers are in docs/architecture.md`);
    process.exit(1);
  }
  console.log(`check-layers: ${graph.size} files, imports one way, no cycles`);
}
