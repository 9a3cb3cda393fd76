/**
 * Property tests are deterministic in CI: one fixed seed for every
 * `fc.assert` that does not set its own (a failure then reproduces on any
 * machine). Outside CI each run explores new inputs; a counterexample found
 * there becomes a named case of its test.
 */
import fc from 'fast-check';

if (process.env['CI'] === 'true') fc.configureGlobal({ seed: 0x616d73 });
