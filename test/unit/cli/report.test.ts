import { describe, expect, it } from 'vitest';
import { ConfigurationError, ServiceError, TransportError } from '../../../packages/sdk/src/index.js';
import { UsageError } from '../../../packages/dev/src/cli/args.js';
import { describeError, reportFailure } from '../../../packages/dev/src/cli/report.js';
import { captureIo } from './helpers.js';

describe('reportFailure', () => {
  it('exits 2 for usage and configuration errors, pointing at --help for usage', () => {
    const io = captureIo();
    expect(reportFailure(io, 'logs', new UsageError('--limit needs a number'))).toBe(2);
    expect(io.err).toBe("ams logs: --limit needs a number. Run 'ams logs --help'.\n");
    const io2 = captureIo();
    expect(reportFailure(io2, 'logs', new ConfigurationError({ option: 'x', message: 'bad x' }))).toBe(2);
  });

  it('exits 1 for runtime failures, naming the service code and status', () => {
    const io = captureIo();
    const err = new ServiceError({ code: 'AGENT_TOKEN_INVALID', status: 401, message: 'Token invalid.' });
    expect(reportFailure(io, 'logs', err)).toBe(1);
    expect(io.err).toContain('HTTP 401 AGENT_TOKEN_INVALID');
    expect(
      reportFailure(captureIo(), 'x', new TransportError({ code: 'TRANSPORT_NETWORK', message: 'down' })),
    ).toBe(1);
    expect(reportFailure(captureIo(), 'x', 'weird')).toBe(1);
  });

  it('never prints a token that reached an error message', () => {
    const token = `hsk_${'a1B2c3D4e5'.repeat(4)}`;
    expect(describeError(new Error(`failed with ${token}`))).not.toContain(token);
    expect(
      describeError(new ServiceError({ code: 'UNAUTHORIZED', status: 401, message: `bad ${token}` })),
    ).not.toContain(token);
  });
});
