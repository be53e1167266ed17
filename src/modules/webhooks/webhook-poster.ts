import type { Agent } from 'undici';
import { RequestThread } from '../../platform/core/request-thread.js';
import type { TargetPolicy } from './safe-target.js';
import type { SendRequest, SendThreadData } from './send-thread.worker.js';
import { type PostJob, type PostLimits, type PostResult, postWebhook, webhookAgent } from './webhook-post.js';

/** Where a batch of webhook POSTs runs: on the request thread, or in one long-lived send thread (WEBHOOK_SEND_THREAD). */
export interface WebhookPoster {
  /** One result per job, in order; rejects when the batch could not be sent at all (the worker then retries it). */
  post(jobs: PostJob[]): Promise<PostResult[]>;
  close(): Promise<void>;
}

/** Sends on the calling thread, with one keep-alive Agent for the poster's life. */
export class InlinePoster implements WebhookPoster {
  private readonly agent: Agent;
  private closed: Promise<void> | undefined;

  constructor(private readonly policy: TargetPolicy, private readonly limits: PostLimits) {
    this.agent = webhookAgent(policy);
  }

  post(jobs: PostJob[]): Promise<PostResult[]> {
    return Promise.all(jobs.map((job) => postWebhook(this.agent, this.policy, job, this.limits)));
  }

  close(): Promise<void> {
    return (this.closed ??= this.agent.close());
  }
}

/**
 * Sends in one worker thread, a batch per request. The database work (claims, outcomes, attempts) stays with the
 * caller. A thread that dies fails its batches (the delivery worker retries them); the next batch starts a new one.
 */
export class ThreadPoster implements WebhookPoster {
  private readonly thread: RequestThread<SendRequest, PostResult[]>;
  private closed = false;

  constructor(data: SendThreadData) {
    this.thread = new RequestThread(new URL('./send-thread.worker.js', import.meta.url), data, 'webhook send thread');
  }

  post(jobs: PostJob[]): Promise<PostResult[]> {
    if (jobs.length === 0) return Promise.resolve([]);
    if (this.closed) return Promise.reject(new Error('the webhook send thread is closed'));
    return this.thread.request({ jobs });
  }

  /** Ends the thread; the delivery worker has recorded every batch's outcome before it closes its senders. */
  close(): Promise<void> {
    this.closed = true;
    return this.thread.close();
  }
}
