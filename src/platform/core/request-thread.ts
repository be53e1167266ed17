import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { compiled } from './cpu-pool.js';

/** A numbered request as the thread receives it. */
export type ThreadRequest<Request> = Request & { seq: number };
/** What the thread answers a numbered request with: its result, or why it failed. */
export type ThreadReply<Result> = { seq: number; result: Result } | { seq: number; error: string };

type Pending<Result> = { resolve: (result: Result) => void; reject: (err: Error) => void };
/** A started thread and the requests it has not answered yet. */
type Started<Result> = { worker: Worker; pending: Map<number, Pending<Result>> };

/**
 * One long-lived worker thread answering numbered requests (`ThreadRequest` in, `ThreadReply` out). It starts on first
 * use and is referenced only while a request is out, so it never holds a process open; a thread that dies fails the
 * requests it holds, and the next request starts a new one.
 */
export class RequestThread<Request extends object, Result> {
  private current: Started<Result> | undefined;
  private seq = 0;

  constructor(
    /** The worker module (its compiled twin when running from the sources). */
    private readonly module: URL,
    private readonly workerData: unknown,
    /** What the thread is, for errors: "webhook send thread". */
    private readonly what: string,
  ) {}

  request(request: Request): Promise<Result> {
    const { worker, pending } = this.thread();
    const seq = ++this.seq;
    return new Promise<Result>((resolve, reject) => {
      pending.set(seq, { resolve, reject });
      if (pending.size === 1) worker.ref();
      worker.postMessage({ ...request, seq } satisfies ThreadRequest<Request>);
    });
  }

  /**
   * Ends the thread: with `goodbye`, the message after which the thread finishes its own work (closes its connection)
   * and exits, waited for; without, terminated.
   */
  async close(goodbye?: object): Promise<void> {
    const started = this.current;
    this.current = undefined;
    if (started === undefined) return;
    if (goodbye === undefined) {
      await started.worker.terminate();
      return;
    }
    const exited = once(started.worker, 'exit');
    // Referenced until it has exited: an idle thread is not, and the process could end before it had closed.
    started.worker.ref();
    started.worker.postMessage(goodbye);
    await exited;
  }

  private thread(): Started<Result> {
    if (this.current !== undefined) return this.current;
    const started: Started<Result> = { worker: new Worker(compiled(this.module), { workerData: this.workerData }), pending: new Map() };
    const { worker, pending } = started;
    worker.unref();
    worker.on('message', (reply: ThreadReply<Result>) => {
      const waiting = pending.get(reply.seq);
      if (waiting === undefined) return;
      pending.delete(reply.seq);
      if (pending.size === 0) worker.unref();
      if ('error' in reply) waiting.reject(new Error(`${this.what}: ${reply.error}`));
      else waiting.resolve(reply.result);
    });
    const lost = (err: Error) => {
      if (this.current === started) this.current = undefined;
      for (const waiting of pending.values()) waiting.reject(err);
      pending.clear();
    };
    // An error thrown in the thread (a SQLite file it cannot open) can arrive without its message: name what is known.
    worker.on('error', (err: Error) => lost(new Error(`${this.what} failed: ${err.message || (err as { code?: string }).code || err.name}`)));
    worker.on('exit', (code) => lost(new Error(`${this.what} exited (${code})`)));
    this.current = started;
    return started;
  }
}
