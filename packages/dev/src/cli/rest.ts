/**
 * The REST client every networked command uses: the SDK's `createRestClient`
 * with a CLI user agent, and the base URL every command defaults to.
 *
 * @module
 */
import pkg from '../../package.json' with { type: 'json' };
import { createRestClient, type CredentialsProvider, type RestClient } from 'agent-messaging-sdk/protocol';
import { httpUrlOf } from './args.js';
import { envValue, type CliIo } from './io.js';

/** Base URL when neither `--base-url` nor `AMS_BASE_URL` is given. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

/**
 * The base URL: `--base-url`, else `AMS_BASE_URL`, else {@link DEFAULT_BASE_URL}.
 *
 * @throws {@link UsageError} when it is not an absolute http(s) URL.
 */
export function baseUrlOf(io: CliIo, given: string | undefined): string {
  const text = given ?? envValue(io, 'AMS_BASE_URL') ?? DEFAULT_BASE_URL;
  return httpUrlOf(text, given === undefined ? 'AMS_BASE_URL' : '--base-url').href.replace(/\/$/, '');
}

/** A REST client for the CLI: bearer `credentials` when given, `ams-cli/<version>` user agent. */
export function cliRestClient(baseUrl: string, credentials?: string | CredentialsProvider): RestClient {
  return createRestClient({
    baseUrl,
    ...(credentials === undefined ? {} : { credentials }),
    headers: { 'user-agent': `ams-cli/${pkg.version}` },
    retry: { maxAttempts: 3, maxTotalWaitMs: 10_000 },
  });
}
