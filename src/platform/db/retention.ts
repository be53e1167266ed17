import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { Config } from '../../config.js';
import type { Clock } from '../clock.js';
import type { BackgroundWorker } from '../module-definition.js';
import { purgeExpired } from '../operations/idempotency.repository.js';
import { purgeDelivered } from '../outbox/outbox.repository.js';
import type { DatabaseHandle } from './database.js';

/** One kind of row retention removes: deletes at most `limit` rows older than `before` in one statement. */
export interface PurgeTarget {
  name: string;
  /** How long rows are kept past their own timestamp (delivered_at, expires_at). */
  keepMs: number;
  purge(before: string, limit: number): Promise<number>;
}

/** What one purge run did, per target: rows deleted and the statements it took. */
export type RetentionReport = Record<string, { deleted: number; batches: number }>;

export interface RetentionOptions {
  targets: readonly PurgeTarget[];
  clock: Clock;
  intervalMs: number;
  batchSize: number;
  log?: (message: string, err?: unknown) => void;
}

/**
 * Every `serve` process runs one: every `intervalMs` it deletes what retention allows, `batchSize` rows a statement,
 * yielding to requests between statements so no lock or event-loop turn is held for long. Several processes may purge
 * at once: each statement deletes rows that are still there, and PostgreSQL's SKIP LOCKED keeps them off each other.
 */
export class RetentionWorker implements BackgroundWorker {
  readonly name = 'retention';
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly o: RetentionOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.runLoop();
  }

  /** Stops between two statements: a purge cut short resumes at the next run. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /** One purge over every target, to the end unless the worker is stopping. */
  async runOnce(): Promise<RetentionReport> {
    const report: RetentionReport = {};
    const now = this.o.clock.now().getTime();
    for (const target of this.o.targets) {
      const before = new Date(now - target.keepMs).toISOString();
      const done = { deleted: 0, batches: 0 };
      report[target.name] = done;
      for (;;) {
        const deleted = await target.purge(before, this.o.batchSize);
        done.batches += 1;
        done.deleted += deleted;
        if (deleted < this.o.batchSize || this.stopping()) break;
        await yieldToRequests();
      }
    }
    return report;
  }

  /** Only a started worker can be stopping; a direct runOnce (tests, a CLI) runs to the end. */
  private stopping(): boolean {
    return this.loop !== undefined && !this.running;
  }

  private async runLoop(): Promise<void> {
    while (this.running) {
      try {
        await this.runOnce();
      } catch (err) {
        // A database fault now is retried at the next interval; nothing was half-deleted (one statement a batch).
        this.o.log?.('retention purge failed; retrying at the next interval', err);
      }
      if (this.running) await this.sleep(this.o.intervalMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

/** The platform's retention: delivered outbox rows and expired idempotency records (RETENTION_* settings). */
export function createRetentionWorker(config: Config, database: DatabaseHandle, clock: Clock, log?: RetentionOptions['log']): RetentionWorker {
  const { db, dialect } = database;
  return new RetentionWorker({
    targets: [
      { name: 'outbox_delivered', keepMs: config.RETENTION_OUTBOX_DELIVERED_MS, purge: (before, limit) => purgeDelivered(db, dialect, before, limit) },
      { name: 'idempotency_expired', keepMs: config.RETENTION_IDEMPOTENCY_MS, purge: (before, limit) => purgeExpired(db, dialect, before, limit) },
    ],
    clock,
    intervalMs: config.RETENTION_INTERVAL_MS,
    batchSize: config.RETENTION_BATCH_SIZE,
    ...(log ? { log } : {}),
  });
}
