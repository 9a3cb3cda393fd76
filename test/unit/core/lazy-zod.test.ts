/**
 * src/core/lazy-zod.ts: schemas declared through it are built on first use
 * (issue #23, docs/performance.md) and then behave as zod's own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as zod from 'zod';
import * as z from '../../../packages/sdk/src/core/lazy-zod.js';

/** The same declarations, once with zod's factories and once with the stand-ins. */
function declare(f: typeof zod) {
  const member = f.looseObject({
    id: f.string().min(1).max(8),
    role: f.enum(['owner', 'member']).optional(),
    score: f.int().min(0).nullable().optional(),
  });
  const text = f.strictObject({ type: f.literal('text'), text: f.string().max(20) });
  const file = f.looseObject({ type: f.literal('file'), size: f.number().nonnegative() });
  return {
    member,
    group: member.extend({ members: f.array(member).max(3), tags: f.record(f.string(), f.boolean()) }),
    payload: f.discriminatedUnion('type', [text, file]),
    either: f.union([f.null(), f.undefined(), f.string().refine((s) => s !== 'no', { message: 'not no' })]),
    any: f.unknown(),
    shape: f.object({ ...member.shape, extra: f.string() }),
  };
}

describe('lazy-zod', () => {
  it('does not build a schema when it is declared, only when it is used', () => {
    let reads = 0;
    const shape = new Proxy(
      { a: zod.string() },
      {
        get: (t, k) => (reads++, Reflect.get(t, k)),
        ownKeys: (t) => (reads++, Reflect.ownKeys(t)),
      },
    );
    const schema = z.looseObject(shape).optional();
    expect(reads).toBe(0);
    expect(schema.safeParse({ a: 'x' }).success).toBe(true);
    expect(reads).toBeGreaterThan(0);
  });

  it("accepts, refuses and reports exactly as zod's own schemas (property)", () => {
    const real = declare(zod);
    const lazy = declare(z as unknown as typeof zod);
    const verdict = (s: zod.ZodType, input: unknown) => {
      const r = s.safeParse(input);
      return r.success ? { ok: r.data } : { issues: r.error.issues };
    };
    const inputs = fc.oneof(
      fc.anything(),
      fc.record({ id: fc.string(), role: fc.constantFrom('owner', 'member', 'x'), score: fc.integer() }),
      fc.record({ type: fc.constantFrom('text', 'file', 'other'), text: fc.string(), size: fc.integer() }),
    );
    fc.assert(
      fc.property(inputs, (input) => {
        for (const key of Object.keys(real) as (keyof typeof real)[]) {
          expect(verdict(lazy[key], input)).toEqual(verdict(real[key], input));
        }
      }),
      { seed: 23, numRuns: 300 },
    );
  });

  it('reads like the schema once built: shape, options, instanceof, errors', () => {
    const member = z.looseObject({ id: z.string() });
    expect(Object.keys(member.shape)).toEqual(['id']);
    expect(member instanceof zod.ZodObject).toBe(true);
    expect(z.union([z.string(), z.number()]).options).toHaveLength(2);
    expect(() => member.parse({})).toThrow(zod.ZodError);
    expect(Object.keys({ ...z.string().min(1) })).toEqual(Object.keys({ ...zod.string().min(1) }));
  });

  it("is the only module of the SDK's source that imports zod's values (others import types only, or the namespace in the MCP bridge)", () => {
    const src = join(import.meta.dirname, '../../../packages/sdk/src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const valueImports = files.filter(
      (f) =>
        f !== join('core', 'lazy-zod.ts') &&
        /^import (?!type )[^;]*from 'zod(\/[^']*)?';/m.test(readFileSync(join(src, f), 'utf8')),
    );
    // The MCP bridge (its own entry) hands real schemas to the MCP SDK, which walks their internals;
    // it imports zod as a namespace, so only the factories it uses are kept.
    const mcp = join('mcp', 'server.ts');
    expect(valueImports.filter((f) => f === mcp)).toEqual([mcp]);
    expect(readFileSync(join(src, mcp), 'utf8')).toMatch(/^import \* as z from 'zod';$/m);
    valueImports.splice(valueImports.indexOf(mcp), 1);
    // `import { z } from 'zod'` would bring every zod export (locales included) into the main entry, built at import.
    expect(valueImports).toEqual([]);
  });

  it('is used with z.output, never z.infer (a bundled declaration would read `infer<…>`, a keyword)', () => {
    const src = join(import.meta.dirname, '../../../packages/sdk/src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(
      files.filter(
        (f) => f !== join('core', 'lazy-zod.ts') && /\bz\.infer</.test(readFileSync(join(src, f), 'utf8')),
      ),
    ).toEqual([]);
  });
});
