/**
 * The worker thread of the open pool (built as its own file, `open-worker.js`
 * / `.cjs`, next to the bundle that spawns it). It holds the recipient key
 * pairs the pool sent (once, and again after a rotation), opens each job with
 * the synchronous `open` on node:crypto and answers each batch in one message.
 * It never logs: keys stay in this thread's memory only.
 *
 * @module
 */
import { parentPort } from 'node:worker_threads';
import { open } from '../open.js';
import { redactedKeyPair, type KeyPair } from '../keys.js';
import { toWireFailure, type JobResult, type OpenJob, type PoolMessage } from './protocol.js';

let keys: readonly KeyPair[] = [];

function openOne(job: OpenJob): JobResult {
  try {
    const opened = open(job.input, {
      recipientId: job.recipientId,
      keys,
      senderKey: (id) => (id === job.senderId ? job.senderKey : undefined),
      maxEnvelopeBytes: job.maxBytes,
      acceptLegacyV10: job.acceptLegacy,
    });
    return { id: job.id, opened };
  } catch (err) {
    return { id: job.id, failure: toWireFailure(err) };
  }
}

const port = parentPort;
if (port !== null) {
  port.on('message', (msg: PoolMessage) => {
    if (msg.t === 'keys') {
      // Redacted again here, so no inspection of this thread's state can print them.
      keys = msg.keys.map((k) => redactedKeyPair(k.publicKey, k.privateKey));
      return;
    }
    port.postMessage({ t: 'done', results: msg.jobs.map(openOne) });
  });
  port.postMessage({ t: 'ready' });
}
