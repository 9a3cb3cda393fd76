/**
 * A compile-time check that a hand-written public type and the type a zod
 * schema infers are the same (each assignable to the other): the public
 * declarations then name plain interfaces, never zod's types, and a schema
 * that drifts from its interface fails the build.
 *
 * @example
 * ```ts
 * true satisfies SameType<z.output<typeof TextPayloadSchema>, TextPayload>;
 * ```
 *
 * @module
 * @internal
 */

/** `true` when `A` and `B` are each assignable to the other, else `false`. */
export type SameType<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
