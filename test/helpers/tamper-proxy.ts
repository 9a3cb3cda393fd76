/**
 * A relay in the middle that rewrites JSON request and response bodies, as a
 * compromised service could: the HTTP half of the hostile relay
 * (hostile-relay.ts), under the name the older tests use.
 */
export {
  startHostileRelay as startTamperProxy,
  type HostileRelay as TamperProxy,
  type JsonRewrite,
} from './hostile-relay.js';
