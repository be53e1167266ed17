import { Worker } from 'node:worker_threads';
import type { Agent } from 'undici';
import { compiled } from '../../platform/core/cpu-pool.js';
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

type Pending = { resolve: (results: PostResult[]) => void; reject: (err: Error) => void };
type SendReply = { seq: number; results: PostResult[] } | { seq: number; error: string };
/** A started thread and the batches it has not answered yet. */
type Thread = { worker: Worker; pending: Map<number, Pending> };

const THREAD_MODULE = new URL('./send-thread.worker.js', import.meta.url);

/**
 * Sends in one worker thread, a batch per message. The database work (claims, outcomes, attempts) stays with the
 * caller. The thread starts on first use and is referenced only while a batch is out, so it never holds a process open.
 */
export class ThreadPoster implements WebhookPoster {
  private current: Thread | undefined;
  private seq = 0;
  private closed = false;

  constructor(private readonly data: SendThreadData) {}

  post(jobs: PostJob[]): Promise<PostResult[]> {
    if (jobs.length === 0) return Promise.resolve([]);
    if (this.closed) return Promise.reject(new Error('the webhook send thread is closed'));
    const { worker, pending } = this.thread();
    const seq = ++this.seq;
    return new Promise<PostResult[]>((resolve, reject) => {
      pending.set(seq, { resolve, reject });
      if (pending.size === 1) worker.ref();
      worker.postMessage({ seq, jobs } satisfies SendRequest);
    });
  }

  /** Ends the thread; the delivery worker has recorded every batch's outcome before it closes its senders. */
  async close(): Promise<void> {
    this.closed = true;
    const thread = this.current;
    this.current = undefined;
    if (thread !== undefined) await thread.worker.terminate();
  }

  private thread(): Thread {
    if (this.current !== undefined) return this.current;
    const thread: Thread = { worker: new Worker(compiled(THREAD_MODULE), { workerData: this.data }), pending: new Map() };
    const { worker, pending } = thread;
    worker.unref();
    worker.on('message', (reply: SendReply) => {
      const waiting = pending.get(reply.seq);
      if (waiting === undefined) return;
      pending.delete(reply.seq);
      if (pending.size === 0) worker.unref();
      if ('error' in reply) waiting.reject(new Error(`webhook send thread: ${reply.error}`));
      else waiting.resolve(reply.results);
    });
    // A thread that dies fails its batches (the delivery worker retries them); the next batch starts a new one.
    const lost = (err: Error) => {
      if (this.current === thread) this.current = undefined;
      for (const waiting of pending.values()) waiting.reject(err);
      pending.clear();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`webhook send thread exited (${code})`)));
    this.current = thread;
    return thread;
  }
}
