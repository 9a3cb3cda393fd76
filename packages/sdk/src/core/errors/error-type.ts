/**
 * What traces and metrics may say of an error: its code or class name.
 *
 * @module
 */

/** An error's code or class name, never its message (a message may quote content). */
export function errorTypeOf(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string') return name;
  }
  return 'unknown';
}
