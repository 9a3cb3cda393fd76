/**
 * Building request targets: the base URL's path prefix, the request path and
 * the query. Paths are relative to the base URL only, so a token can never be
 * sent to another origin by a path like `//evil.example` or `https://…`.
 *
 * @module
 */
import { ConfigurationError } from '../../core/errors/configuration-error.js';
import { validationError } from '../../core/protocol/parse.js';
import { isSafeObjectKey } from '../../core/protocol/object-ref.js';

/** Query parameters; `undefined` values are left out. */
export type QueryParams = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * The origin and the path+query of a request against `base`.
 *
 * @throws {@link ConfigurationError} (option `path`) unless `path` starts with a
 * single `/` and has no `?`, `#`, backslash or control character.
 */
export function targetOf(base: URL, path: string, query?: QueryParams): { origin: string; path: string } {
  // eslint-disable-next-line no-control-regex
  if (!path.startsWith('/') || path.startsWith('//') || /[?#\\\u0000-\u0020\u007f]/.test(path)) {
    throw new ConfigurationError({
      option: 'path',
      message:
        'A request path must start with a single "/" and contain no query, fragment, backslash or whitespace.',
    });
  }
  const prefix = base.pathname.replace(/\/+$/, '');
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.append(k, String(v));
  const qs = params.toString();
  const search = qs === '' ? '' : `?${qs}`;
  return { origin: base.origin, path: `${prefix}${path}${search}` };
}

/**
 * The path of `GET /r2/<object_key>`, each key segment percent-encoded.
 *
 * @throws {@link ValidationError} for a key that could steer the request
 * elsewhere (empty, dot segments, `?`, `#`, `\`, whitespace, control characters).
 * @example
 * ```ts
 * const { bytes } = await client.getBytes(objectKeyPath(ref.object_key), { limiter: 'objects' });
 * ```
 */
export function objectKeyPath(objectKey: string): string {
  if (!isSafeObjectKey(objectKey)) {
    throw validationError('object key', [{ path: [], message: 'Not a safe relative object key' }]);
  }
  return `/r2/${objectKey.split('/').map(encodeURIComponent).join('/')}`;
}

/** Percent-encodes one path segment (an id), e.g. `` `/agents/${pathSegment(id)}/messages` ``. */
export function pathSegment(value: string): string {
  return encodeURIComponent(value);
}
