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
/** Writes wait for a running checkpoint at most this long: a slow disk must not stop them, only let the two overlap. */
const HOLD_MAX_MS = 500;

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
 * first such commit, so a process that writes little never starts one. While it runs, this process begins no write
 * (`holds`): a checkpoint's sync beside a commit's slowed both (the first version of this thread, reverted for it),
 * and a write that waits holds no event loop, where the checkpoint inside a COMMIT held every request.
 */
export class BackgroundCheckpoints {
  /** Checkpoints the thread has run. */
  readonly stats = { checkpoints: 0 };
  private worker: Worker | undefined;
  private lastAskedAt = Number.NEGATIVE_INFINITY;
  private running = false;
  /** The thread failed: the writer's own checkpoint (WAL_BACKSTOP_PAGES) carries on alone. */
  private failed = false;
  /** Writes waiting for the running checkpoint to end. */
  private readonly held: (() => void)[] = [];
  private holdTimer: NodeJS.Timeout | undefined;
  /** The running checkpoint outlasted HOLD_MAX_MS. */
  private overdue = false;

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

  /** True when a checkpoint runs: `resume` is called once it ends (or after HOLD_MAX_MS, whichever is first). */
  holds(resume: () => void): boolean {
    if (!this.running || this.overdue) return false;
    this.held.push(resume);
    this.holdTimer ??= setTimeout(() => {
      // Writes go on beside this checkpoint from now on; the next one holds them again.
      this.overdue = true;
      this.release();
    }, HOLD_MAX_MS);
    return true;
  }

  private release(): void {
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    for (const resume of this.held.splice(0)) resume();
  }

  /** Ends the thread after the checkpoint it is running, its connection closed. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return;
    this.worker = undefined;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    // Held while it closes: a process with nothing else left to do would otherwise end before the thread has.
    worker.ref();
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
      this.overdue = false;
      if (message === 'done') this.stats.checkpoints++;
      this.release();
    });
    worker.on('error', () => {
      this.failed = true;
      this.running = false;
      this.release();
    });
    return worker;
  }
}
