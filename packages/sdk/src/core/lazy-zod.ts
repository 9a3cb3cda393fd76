/**
 * zod with schemas built on first use (issue #23; docs/performance.md, "Import
 * time of the main entry"). The SDK's modules import this module instead of
 * `zod` (`import * as z from '../lazy-zod.js'`) and declare their schemas as
 * before: `export const FooSchema = z.looseObject({ ... })`. Each factory the
 * SDK calls at module top level (`z.string()`, `z.looseObject(...)`, ...)
 * returns a stand-in that records the call, as do the chained refinements
 * (`.min(1).max(8).optional()`); the real zod schema is built the first time
 * anything else is read from it (`.parse`, `.shape`, `_zod` when another
 * schema checks it). Building the wire model's ~600 schemas at import was a
 * large share of `import 'agent-messaging-sdk'`, and most processes use a few.
 *
 * The stand-ins are typed as the schemas they stand for, so `z.output`,
 * composition, `.extend` and `.shape` work unchanged; every zod type and every
 * other value (`z.NEVER`, `z.ZodError`, ...) is zod's own.
 *
 * Types are written `z.output<typeof S>`, never `z.infer<…>`: the declaration
 * bundler turns this namespace's members into named imports from `zod`, and a
 * bare `infer<…>` is TypeScript's `infer` keyword (the dev package's build saw
 * `(Missing)` types). A test in test/unit/core/lazy-zod.test.ts keeps it so.
 *
 * @internal
 * @module
 */
import * as zod from 'zod';

export * from 'zod';

/** Methods that return a new schema: called on a stand-in, they are recorded too. */
const CHAINED = new Set<PropertyKey>([
  'min',
  'max',
  'length',
  'gt',
  'gte',
  'lt',
  'lte',
  'int',
  'positive',
  'nonnegative',
  'negative',
  'nonpositive',
  'multipleOf',
  'finite',
  'safe',
  'regex',
  'startsWith',
  'endsWith',
  'includes',
  'trim',
  'toLowerCase',
  'toUpperCase',
  'lowercase',
  'uppercase',
  'normalize',
  'nonempty',
  'refine',
  'superRefine',
  'check',
  'overwrite',
  'optional',
  'exactOptional',
  'nullable',
  'nullish',
  'nonoptional',
  'array',
  'or',
  'and',
  'transform',
  'pipe',
  'default',
  'prefault',
  'catch',
  'readonly',
  'brand',
  'describe',
  'extend',
  'safeExtend',
  'merge',
  'pick',
  'omit',
  'partial',
  'required',
  'catchall',
  'passthrough',
  'strict',
  'strip',
  'loose',
]);

/** A stand-in for the schema `build` returns, built on first read. */
function lazy<T extends object>(build: () => T): T {
  let built: T | undefined;
  const real = (): T => (built ??= build());
  return new Proxy({} as T, {
    get: (_, key) => {
      if (built === undefined && CHAINED.has(key)) {
        return (...args: unknown[]) =>
          lazy(() => (Reflect.get(real(), key) as (...a: unknown[]) => object).apply(real(), args));
      }
      return Reflect.get(real(), key);
    },
    set: (_, key, value) => Reflect.set(real(), key, value),
    has: (_, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => {
      const d = Reflect.getOwnPropertyDescriptor(real(), key);
      // The stand-in's own (empty) target must not contradict it: report every property as configurable.
      return d === undefined ? undefined : { ...d, configurable: true };
    },
    defineProperty: (_, key, d) => Reflect.defineProperty(real(), key, d),
    deleteProperty: (_, key) => Reflect.deleteProperty(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}

/** `factory`, returning stand-ins. */
function deferred<F extends (...args: never[]) => object>(factory: F): F {
  return ((...args: Parameters<F>) => lazy(() => factory(...args))) as F;
}

// The factories the SDK's modules call at top level (add one here before using it there).
export const string = deferred(zod.string);
export const number = deferred(zod.number);
export const int = deferred(zod.int);
export const boolean = deferred(zod.boolean);
export const literal = deferred(zod.literal);
export const unknown = deferred(zod.unknown);
const null_ = deferred(zod.null);
const undefined_ = deferred(zod.undefined);
const enum_ = deferred(zod.enum);
export { null_ as null, undefined_ as undefined, enum_ as enum };
export const object = deferred(zod.object);
export const looseObject = deferred(zod.looseObject);
export const strictObject = deferred(zod.strictObject);
export const array = deferred(zod.array);
export const union = deferred(zod.union);
export const discriminatedUnion = deferred(zod.discriminatedUnion);
export const record = deferred(zod.record);
