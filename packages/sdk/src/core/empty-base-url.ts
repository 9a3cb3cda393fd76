/**
 * The error for an empty service base URL (issue #28): usually an unset
 * `AMS_BASE_URL`, said as such rather than as a malformed URL. Shared by the
 * Agent's and the UserClient's option checks (no transport import, so the
 * browser bundle of the UserClient stays free of Node modules).
 *
 * @module
 */
import { ConfigurationError } from './errors/configuration-error.js';

/** `ConfigurationError` for an empty `baseUrl`. */
export function emptyBaseUrl(): ConfigurationError {
  return new ConfigurationError({
    option: 'baseUrl',
    message:
      'Option "baseUrl" is empty: is AMS_BASE_URL set? (`ams dev bootstrap` prints it for a local server)',
  });
}
