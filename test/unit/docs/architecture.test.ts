/**
 * The import-direction check (`scripts/check-layers.ts`, run by `npm run
 * lint`): src/ passes it against the layer table of docs/architecture.md,
 * and it catches what it is there to catch — an import against the table, a
 * file in no layer, a cycle — on planted graphs.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkLayers,
  findCycles,
  layerOf,
  parseLayerTable,
  readImportGraph,
  readLayers,
  tableProblems,
  type ImportGraph,
  type Layer,
} from '../../../scripts/check-layers.js';

const graph = readImportGraph();
const layers = readLayers();

/** `graph` with one more import. */
function plant(base: ImportGraph, from: string, to: string): ImportGraph {
  const copy = new Map(base);
  copy.set(from, [...(base.get(from) ?? []), to]);
  return copy;
}

describe('packages/*/src/ against docs/architecture.md', () => {
  it('has no import against the layer table and no cycle', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(checkLayers(graph, layers)).toEqual([]);
  });

  it('declares the layers from the bottom up, messaging below both clients', () => {
    const names = layers.map((l) => l.name);
    expect(names[0]).toBe('core');
    expect(names.at(-1)).toBe('cli');
    expect(names.indexOf('messaging')).toBeLessThan(names.indexOf('agent'));
    expect(names.indexOf('messaging')).toBeLessThan(names.indexOf('client'));
    const mayImport = (name: string) => layers.find((l) => l.name === name)!.mayImport;
    expect(mayImport('agent')).not.toContain('client');
    expect(mayImport('client')).not.toContain('agent');
    expect(mayImport('server')).not.toContain('agent');
    expect(mayImport('server')).not.toContain('client');
    expect(mayImport('core')).toEqual([]);
  });

  it('puts every file in the layer of its folder', () => {
    expect(layerOf('packages/sdk/src/messaging/sender.ts', layers)?.name).toBe('messaging');
    expect(layerOf('packages/sdk/src/index.ts', layers)?.name).toBe('entry');
    expect(layerOf('packages/sdk/src/protocol.ts', layers)?.name).toBe('entry');
    expect(layerOf('packages/dev/src/server/http/router.ts', layers)?.name).toBe('server');
    expect(layerOf('packages/sdk/src/nowhere.ts', layers)).toBeUndefined();
  });
});

describe('a planted violation fails the check', () => {
  it('client importing agent', () => {
    const problems = checkLayers(
      plant(graph, 'packages/sdk/src/client/user-client.ts', 'packages/sdk/src/agent/agent.ts'),
      layers,
    );
    expect(problems).toContain(
      'packages/sdk/src/client/user-client.ts (client) imports packages/sdk/src/agent/agent.ts (agent): "client" may not import "agent"',
    );
  });

  it('core importing crypto, which also closes a cycle', () => {
    const problems = checkLayers(
      plant(graph, 'packages/sdk/src/core/encoding.ts', 'packages/sdk/src/crypto/keys.ts'),
      layers,
    );
    expect(problems.some((p) => p.includes('"core" may not import "crypto"'))).toBe(true);
    expect(
      problems.some(
        (p) => p.startsWith('import cycle of') && p.includes('packages/sdk/src/core/encoding.ts'),
      ),
    ).toBe(true);
  });

  it('the server importing the UserClient', () => {
    const problems = checkLayers(
      plant(graph, 'packages/dev/src/server/start.ts', 'packages/sdk/src/client/user-client.ts'),
      layers,
    );
    expect(problems).toEqual([
      'packages/dev/src/server/start.ts (server) imports packages/sdk/src/client/user-client.ts (client): "server" may not import "client"',
    ]);
  });

  it('a cycle inside one layer', () => {
    const problems = checkLayers(
      plant(graph, 'packages/dev/src/server/http/router.ts', 'packages/dev/src/server/create-context.ts'),
      layers,
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^import cycle of \d+ file\(s\): .*packages\/dev\/src\/server\/create-context\.ts/,
    );
  });

  it('a file in no layer', () => {
    const withStray = new Map(graph).set('packages/sdk/src/stray/x.ts', ['packages/sdk/src/core/clock.ts']);
    expect(checkLayers(withStray, layers)).toEqual([
      'packages/sdk/src/stray/x.ts belongs to no layer (add its folder to the layer table)',
    ]);
  });
});

describe('findCycles', () => {
  it('finds each strongly connected set of files once, and self-imports', () => {
    const g: ImportGraph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', ['e']],
      ['e', ['d']],
      ['f', ['f']],
      ['g', ['a']],
    ]);
    expect(findCycles(g)).toEqual([['a', 'b', 'c'], ['d', 'e'], ['f']]);
  });

  it('finds none in a graph whose edges all point to earlier nodes, and finds any back edge', () => {
    const dag = fc
      .integer({ min: 2, max: 30 })
      .chain((n) =>
        fc.tuple(
          fc.constant(n),
          fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 80 }),
          fc.tuple(fc.nat(n - 1), fc.nat(n - 1)),
        ),
      );
    fc.assert(
      fc.property(dag, ([n, pairs, [x, y]]) => {
        const edges = new Map<string, string[]>();
        for (let i = 0; i < n; i++) edges.set(`f${i}`, []);
        for (const [a, b] of pairs) if (a > b) edges.get(`f${a}`)!.push(`f${b}`);
        expect(findCycles(edges)).toEqual([]);
        // A chain down from the top node, then an edge back up to it: a cycle holding both ends.
        const [hi, lo] = x >= y ? [x, y] : [y, x];
        for (let i = hi; i > lo; i--) edges.get(`f${i}`)!.push(`f${i - 1}`);
        edges.get(`f${lo}`)!.push(`f${hi}`);
        const cycles = findCycles(edges);
        expect(cycles).toHaveLength(1);
        expect(cycles[0]).toContain(`f${hi}`);
        expect(cycles[0]).toContain(`f${lo}`);
      }),
    );
  });

  it('handles a long chain without running out of stack', () => {
    const g = new Map<string, string[]>();
    for (let i = 0; i < 50_000; i++) g.set(`n${i}`, i + 1 < 50_000 ? [`n${i + 1}`] : ['n0']);
    expect(findCycles(g)[0]).toHaveLength(50_000);
  });
});

describe('the layer table', () => {
  const table = [
    '# T',
    '',
    '## Layers',
    '',
    '| Layer | Paths | May import | What |',
    '| --- | --- | --- | --- |',
    '| base | `src/base/` | — | x |',
    '| top | `src/top/`, `src/top.ts` | base | y |',
    '',
    'after',
  ].join('\n');

  it('is parsed from the first table under "## Layers"', () => {
    expect(parseLayerTable(table)).toEqual([
      { name: 'base', paths: ['src/base/'], mayImport: [] },
      { name: 'top', paths: ['src/top/', 'src/top.ts'], mayImport: ['base'] },
    ]);
  });

  it('refuses a text without the heading, the table or a column', () => {
    expect(() => parseLayerTable('# T\n\n| a | b |\n')).toThrow('No "## Layers" heading.');
    expect(() => parseLayerTable('## Layers\n\nprose only\n')).toThrow('No table under "## Layers".');
    expect(() => parseLayerTable('## Layers\n\n| Layer | Paths |\n| - | - |\n| a | b |\n')).toThrow(
      'The layer table has no "may import" column.',
    );
  });

  it('never crashes on arbitrary text: a list of layers or an Error', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 300 }),
        fc.array(fc.string({ maxLength: 40 }), { maxLength: 8 }),
        (s, rows) => {
          for (const text of [
            s,
            `## Layers\n\n| Layer | Paths | May import |\n| - | - | - |\n${rows.join('\n')}`,
          ]) {
            try {
              const parsed = parseLayerTable(text);
              expect(Array.isArray(parsed)).toBe(true);
              expect(Array.isArray(tableProblems(parsed))).toBe(true);
            } catch (error) {
              expect(error).toBeInstanceOf(Error);
            }
          }
        },
      ),
    );
  });

  it('may only name layers above the row, each once', () => {
    const rows: Layer[] = [
      { name: 'a', paths: ['src/a/'], mayImport: ['b'] },
      { name: 'b', paths: ['src/b/'], mayImport: ['a', 'nope'] },
      { name: 'b', paths: [], mayImport: [] },
    ];
    expect(tableProblems(rows)).toEqual([
      'layer "b" is declared twice',
      'layer "b" owns no paths',
      'layer "a" may import "b", which is not above it in the table',
      'layer "b" may import "nope", which is no layer',
    ]);
  });
});

describe('readImportGraph', () => {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('follows static, type-only, re-export and dynamic imports; ignores packages and missing files', () => {
    mkdirSync(join(dir, 'src', 'lib'), { recursive: true });
    const write = (path: string, text: string) => writeFileSync(join(dir, 'src', path), text);
    write('lib/index.ts', 'export const x = 1;\n');
    write('lib/types.ts', 'export type T = number;\n');
    write('lib/more.ts', 'export const m = 2;\n');
    write(
      'main.ts',
      [
        "import { z } from 'zod';",
        "import type { T } from './lib/types.js';",
        "export { m } from './lib/more.js';",
        "import { x } from './lib';",
        "const later = () => import('./late.js');",
        "import './missing.js';",
        'export const y: T = x;',
      ].join('\n'),
    );
    write('late.ts', "import { y } from './main.js';\nexport const l = y;\n");
    const g = readImportGraph(join(dir, 'src'), dir);
    expect(g.get('src/main.ts')).toEqual([
      'src/late.ts',
      'src/lib/index.ts',
      'src/lib/more.ts',
      'src/lib/types.ts',
    ]);
    expect(findCycles(g)).toEqual([['src/late.ts', 'src/main.ts']]);
  });
});
