import type { Logger } from 'pino';
import type { Clock } from '../../../platform/core/clock.js';
import { leaseOwnerId } from '../../../platform/core/ids.js';
import { type BackgroundWorker, SlotLoop } from '../../../platform/core/work-loop.js';
import type { Dialect } from '../../../platform/db/database.js';
import type { Db } from '../../../platform/db/schema.js';
import { claimSyncs, type SyncRow } from './syncs.repository.js';
import type { SyncService } from './syncs.service.js';

interface SyncWorkerOptions {
  /** Syncs run at once in this process. */
  concurrency: number;
  /** Slices one claim runs before giving the sync back, so queued syncs take turns and a stop waits for one slice only. */
  slicesPerClaim: number;
  idleMs: number;
  log: Logger;
}

/**
 * Every `serve` process runs one: claims unfinished syncs with their own lease (never the connection's poll lease) and
 * runs them slice by slice; a process that dies leaves the sync to be resumed by any other once its lease runs out.
 */
export class SyncWorker implements BackgroundWorker {
  readonly name = 'telematics-syncs';
  /** This process, as the holder of the syncs it claims. */
  readonly owner = leaseOwnerId('sync');
  private readonly slots: SlotLoop;

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly clock: Clock,
    private readonly syncs: SyncService,
    private readonly options: SyncWorkerOptions,
  ) {
    this.slots = new SlotLoop(options.concurrency, () => this.tick(), { idleMs: options.idleMs, onError: (err) => this.options.log.warn({ err }, 'claiming syncs failed') });
  }

  start(): void {
    this.slots.start();
  }

  stop(): Promise<void> {
    return this.slots.stop();
  }

  /** Resolves when the syncs started so far have stopped (finished, waiting, or given back after their slices). */
  idle(): Promise<void> {
    return this.slots.idle();
  }

  /** One round: claims as many unfinished syncs as free slots allow and starts them; answers how many started. */
  async tick(): Promise<number> {
    const free = this.slots.free;
    if (free <= 0) return 0;
    const rows = await this.claim(free);
    for (const row of rows) this.begin(row);
    return rows.length;
  }

  /**
   * Runs the one sync `id` in the caller's stead (the CLI's replay when no `serve` runs), if nobody holds it and it is
   * due: step after step until it ends or waits to retry, `beforeStep` first each time. A throw from `beforeStep`
   * (Ctrl-C) gives the sync back at once, so any process resumes it. False when it was not claimable.
   */
  async runOne(id: string, beforeStep: (row: SyncRow) => void): Promise<boolean> {
    const [row] = await this.claim(1, id);
    let current = row;
    try {
      while (current !== undefined) {
        beforeStep(current);
        current = await this.syncs.step(current, this.owner);
      }
    } catch (err) {
      if (current !== undefined) await this.syncs.release(current, this.owner);
      throw err;
    }
    return row !== undefined;
  }

  private claim(limit: number, id?: string): Promise<SyncRow[]> {
    const now = this.clock.now();
    return claimSyncs(this.db, this.dialect, {
      owner: this.owner,
      nowIso: now.toISOString(),
      leaseUntil: new Date(now.getTime() + this.syncs.leaseMs).toISOString(),
      limit,
      ...(id === undefined ? {} : { id }),
    });
  }

  private begin(row: SyncRow): void {
    const run = this.drive(row).catch((err: unknown) => this.options.log.warn({ err }, `sync ${row.id} stopped unexpectedly; another round resumes it`));
    this.slots.hold(row.id, run);
  }

  private async drive(row: SyncRow): Promise<void> {
    let current: SyncRow | undefined = row;
    for (let slices = 0; current !== undefined; slices += 1) {
      if (slices >= this.options.slicesPerClaim || this.slots.stopping) return this.syncs.release(current, this.owner);
      current = await this.syncs.step(current, this.owner);
    }
  }
}
