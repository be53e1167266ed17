import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** A process that commits asks for a checkpoint at most this often. */
const CHECKPOINT_EVERY_MS = 250;
/** SQLite's own threshold (1,000 pages of 4 KB): below it the WAL is left to grow, as SQLite would. */
const WAL_WORTH_CHECKPOINTING_BYTES = 1000 * 4096;
/**
 * The writer's own automatic checkpoint stays on, at this many pages (16 MB of WAL): a backstop should the thread fall
 * behind or fail. Below it the thread's PASSIVE checkpoints keep the WAL short.
 */
export const WAL_BACKSTOP_PAGES = 4000;

/** The checkpointer thread (ESM, evaluated): its own connection to the file, one PASSIVE checkpoint per request. */
const CHECKPOINTER = `
import('node:worker_threads').then(async ({ parentPort, workerData }) => {
  const { default: SQLite } = await import(workerData.driver);
  const db = new SQLite(workerData.file);
  db.pragma('synchronous = ' + workerData.synchronous);
  parentPort.on('message', (message) => {
    if (message === 'close') {
      db.close();
      parentPort.close();
      return;
    }
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
      parentPort.postMessage('done');
    } catch (err) {
      parentPort.postMessage('failed: ' + (err instanceof Error ? err.message : String(err)));
    }
  });
});
`;

/**
 * WAL checkpoints off the request thread. SQLite's automatic checkpoint runs inside the COMMIT that takes the WAL past
 * 1,000 pages, on the event loop: copying the WAL into the database file and syncing it held every request of the
 * process for 50-300 ms at a time during a large EDI intake (docs/decisions.md, "[16/20] EDI intake"). Here a worker
 * thread with its own connection checkpoints instead, PASSIVE (it never waits for, nor blocks, the writer or a reader),
 * at most every CHECKPOINT_EVERY_MS while this process commits and once the WAL is worth it. The thread starts on the
 * first such commit, so a process that writes little never starts one.
 */
export class BackgroundCheckpoints {
  /** Checkpoints the thread has run. */
  readonly stats = { checkpoints: 0 };
  private worker: Worker | undefined;
  private lastAskedAt = Number.NEGATIVE_INFINITY;
  private running = false;
  /** The thread failed: the writer's own checkpoint (WAL_BACKSTOP_PAGES) carries on alone. */
  private failed = false;

  constructor(
    private readonly file: string,
    private readonly synchronous: string,
  ) {}

  /** After a commit of this process. */
  committed(): void {
    if (this.running || this.failed) return;
    const now = performance.now();
    if (now - this.lastAskedAt < CHECKPOINT_EVERY_MS) return;
    this.lastAskedAt = now;
    if (this.worker === undefined && (statSync(`${this.file}-wal`, { throwIfNoEntry: false })?.size ?? 0) < WAL_WORTH_CHECKPOINTING_BYTES) return;
    this.running = true;
    (this.worker ??= this.start()).postMessage('checkpoint');
  }

  /** Ends the thread after the checkpoint it is running, its connection closed. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return;
    this.worker = undefined;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('close');
    await exited;
  }

  private start(): Worker {
    const driver = pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href;
    const worker = new Worker(CHECKPOINTER, { eval: true, workerData: { file: this.file, driver, synchronous: this.synchronous } });
    // Never what keeps a process alive: a stopping process closes it, one that exits without closing loses nothing.
    worker.unref();
    // A checkpoint that failed (the file busy, say) is tried again at the next ask.
    worker.on('message', (message) => {
      this.running = false;
      if (message === 'done') this.stats.checkpoints++;
    });
    worker.on('error', () => {
      this.failed = true;
    });
    return worker;
  }
}
