import { parentPort, workerData } from 'node:worker_threads';
import { TargetPolicy } from './safe-target.js';
import type { ThreadReply, ThreadRequest } from '../../platform/core/request-thread.js';
import { type PostJob, type PostLimits, type PostResult, postWebhook, webhookAgent } from './webhook-post.js';

// Runs in the send thread (webhook-poster.ts): the HTTP side of webhook deliveries, off the request thread. The policy
// (allow list, connect-time address check, no redirects, timeout, capped read) is the one the request thread would apply.

export interface SendThreadData extends PostLimits {
  allowedHosts: string[];
}

/** A batch to POST, answered with one result per job in order, or with why the batch could not be sent. */
export interface SendRequest {
  jobs: PostJob[];
}

const data = workerData as SendThreadData;
const policy = new TargetPolicy(data.allowedHosts);
const agent = webhookAgent(policy);
const port = parentPort;
if (port === null) throw new Error('send-thread.worker.ts runs only as a worker thread');

port.on('message', ({ seq, jobs }: ThreadRequest<SendRequest>) => {
  Promise.all(jobs.map((job) => postWebhook(agent, policy, job, data))).then(
    (result) => port.postMessage({ seq, result } satisfies ThreadReply<PostResult[]>),
    (err: unknown) => port.postMessage({ seq, error: err instanceof Error ? err.message : String(err) } satisfies ThreadReply<PostResult[]>),
  );
});
