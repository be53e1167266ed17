import type { Logger } from 'pino';
import type { Clock } from '../core/clock.js';
import { type BackgroundWorker, WorkLoop } from '../core/work-loop.js';
import { SlicePacer, type SlicePacing } from './slice-pacer.js';

/** One kind of row retention removes: deletes at most `limit` rows older than `before` in one statement. */
export interface PurgeTarget {
  name: string;
  /** How long rows are kept past their own timestamp (delivered_at, expires_at). */
  keepMs: number;
  purge(before: string, limit: number): Promise<number>;
}

/** What one purge run did, per target: rows deleted and the statements it took. */
type RetentionReport = Record<string, { deleted: number; batches: number }>;

/** One statement of a purge, for progress and the bench: what it deleted, the target's total so far, how long it took. */
export interface PurgeBatch {
  target: string;
  deleted: number;
  total: number;
  writeMs: number;
}

/** Rows one purge statement deletes at least on SQLite, whatever they cost: fewer would be mostly statement overhead. */
const MIN_PURGE_ROWS = 50;

interface RetentionOptions {
  targets: readonly PurgeTarget[];
  clock: Clock;
  intervalMs: number;
  /** Rows one statement deletes at most (the first statement's size). */
  batchSize: number;
  /** On SQLite, statements sized to a write time with a pause after each (slice-pacer.ts). */
  pacing: SlicePacing;
  log?: Logger;
}

/**
 * Every `serve` process runs one: every `intervalMs` it deletes what retention allows, at most `batchSize` rows a
 * statement (on SQLite fewer when they cost more than the slice target), yielding to requests and, on SQLite, to other
 * processes' writes between statements, so no lock or event-loop turn is held for long. Several processes may purge
 * at once: each statement deletes rows that are still there, and PostgreSQL's SKIP LOCKED keeps them off each other.
 */
export class RetentionWorker implements BackgroundWorker {
  readonly name = 'retention';
  private readonly loop: WorkLoop;

  constructor(private readonly options: RetentionOptions) {
    // A database fault is retried at the next interval; nothing was half-deleted (one statement a batch).
    const purgeThenWait = async (): Promise<boolean> => {
      await this.runOnce();
      return false;
    };
    this.loop = new WorkLoop(purgeThenWait, {
      idleMs: options.intervalMs,
      onError: (err) => this.options.log?.warn({ err }, 'retention purge failed; retrying at the next interval'),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Stops between two statements: a purge cut short resumes at the next run. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /**
   * One purge over every target, to the end unless the worker is stopping (a direct run, by tests or a CLI, never is).
   * Each statement is its own transaction: a process killed mid-purge leaves whole batches deleted, and the next run
   * deletes what is left (it selects by age, so nothing needs remembering).
   */
  async runOnce(onBatch?: (batch: PurgeBatch) => void): Promise<RetentionReport> {
    const report: RetentionReport = {};
    const now = this.options.clock.now().getTime();
    for (const target of this.options.targets) {
      const before = new Date(now - target.keepMs).toISOString();
      const done = { deleted: 0, batches: 0 };
      report[target.name] = done;
      // Per target: rows of different tables cost differently.
      const pacer = new SlicePacer(this.options.pacing, this.options.batchSize, Math.min(this.options.batchSize, MIN_PURGE_ROWS));
      for (;;) {
        const limit = pacer.size;
        const started = performance.now();
        const deleted = await target.purge(before, limit);
        const writeMs = performance.now() - started;
        done.batches += 1;
        done.deleted += deleted;
        onBatch?.({ target: target.name, deleted, total: done.deleted, writeMs });
        if (deleted < limit || this.loop.stopping) break;
        await pacer.next(writeMs);
      }
    }
    return report;
  }
}
