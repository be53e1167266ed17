import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { compiled } from '../core/cpu-pool.js';
import type { CheckpointReply, CheckpointRequest, CheckpointThreadData } from './sqlite-checkpoint.worker.js';

const THREAD_MODULE = new URL('./sqlite-checkpoint.worker.js', import.meta.url);

type Pending = { resolve: () => void; reject: (err: Error) => void };
/** A started thread and the checkpoints it has not answered yet. */
type Thread = { worker: Worker; pending: Map<number, Pending> };

/**
 * Runs `wal_checkpoint(PASSIVE)` in one long-lived worker thread with its own connection to the file: under a steady write
 * load a checkpoint copies a few thousand pages (8-19 ms measured, every 250 ms), which would otherwise hold the event
 * loop (docs/decisions.md, [16/20]). The thread starts on first use and is referenced only while a checkpoint is out,
 * so it never holds a process open; one that dies fails its checkpoint and the next starts a new thread.
 */
export class WalCheckpointThread {
  private current: Thread | undefined;
  private seq = 0;

  constructor(private readonly file: string) {}

  /** Resolves once the checkpoint has run; rejects when it could not (another process checkpointing, the thread lost). */
  run(): Promise<void> {
    const { worker, pending } = this.thread();
    const seq = ++this.seq;
    return new Promise<void>((resolve, reject) => {
      pending.set(seq, { resolve, reject });
      worker.ref();
      worker.postMessage({ seq } satisfies CheckpointRequest);
    });
  }

  /** Closes the thread's connection and ends it. */
  async close(): Promise<void> {
    const thread = this.current;
    this.current = undefined;
    if (thread === undefined) return;
    const exited = once(thread.worker, 'exit');
    // Referenced until it has closed its connection: an idle thread is not, and the process would end mid-close.
    thread.worker.ref();
    thread.worker.postMessage({ close: true } satisfies CheckpointRequest);
    await exited;
  }

  private thread(): Thread {
    if (this.current !== undefined) return this.current;
    const thread: Thread = { worker: new Worker(compiled(THREAD_MODULE), { workerData: { file: this.file } satisfies CheckpointThreadData }), pending: new Map() };
    const { worker, pending } = thread;
    worker.unref();
    worker.on('message', (reply: CheckpointReply) => {
      const waiting = pending.get(reply.seq);
      if (waiting === undefined) return;
      pending.delete(reply.seq);
      if (pending.size === 0) worker.unref();
      if ('error' in reply) waiting.reject(new Error(`WAL checkpoint: ${reply.error}`));
      else waiting.resolve();
    });
    const lost = (err: Error) => {
      if (this.current === thread) this.current = undefined;
      for (const waiting of pending.values()) waiting.reject(err);
      pending.clear();
    };
    // A SQLite error thrown in the thread (a file it cannot open) arrives without its message: name what is known.
    worker.on('error', (err: Error) => lost(new Error(`WAL checkpoint thread failed: ${err.message || (err as { code?: string }).code || err.name}`)));
    worker.on('exit', (code) => lost(new Error(`WAL checkpoint thread exited (${code})`)));
    this.current = thread;
    return thread;
  }
}
