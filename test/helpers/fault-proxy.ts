/**
 * The TCP fault proxy of the chaos tests is the testing kit's, the transport
 * layer of `world.relay` (packages/dev/src/testing/relay/fault-proxy.ts):
 * one copy, so what users get is what our chaos suite runs on.
 */
export * from '../../packages/dev/src/testing/relay/fault-proxy.js';
