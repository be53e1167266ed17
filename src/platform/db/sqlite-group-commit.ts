import type { QueryResult } from 'kysely';
import { runStatement, type StatementCache } from './sqlite-statement-cache.js';
import type { WalSync } from './sqlite-wal-sync.js';

/** How often a batch tries again for a write lock another connection holds. */
const LOCK_RETRY_MS = 1;

/** With `walSync`: how often the WAL is copied back into the database, so it can start over (checkpointIfDue). */
const CHECKPOINT_EVERY_MS = 250;

/** One SQLite transaction that several callers' transactions share; each is answered once it is durable. */
export interface Batch {
  members: number;
  /** Settles when the batch's COMMIT returns (or fails). */
  readonly durable: Promise<void>;
  settle(error?: unknown): void;
  /** Set when SQLite rolled the whole transaction back under a member (an I/O error, a full disk). */
  lost?: Error;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const durable = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A batch whose members all rolled back has nobody waiting on it.
  durable.catch(() => undefined);
  return { members: 0, durable, settle: (error) => (error === undefined ? resolve() : reject(error)) };
}

/** Batches committed and the transactions they held (members per commit is how much group commit saves). */
export interface GroupCommitStats {
  commits: number;
  members: number;
}

interface GroupCommitOptions {
  /** Members per batch before it commits without waiting for the turn to end. */
  maxMembers: number;
  /** How long a batch waits for another connection's write lock before its members fail with SQLITE_BUSY. */
  lockWaitMs: number;
  /** Runs just before each COMMIT (the read snapshot ends there, or is pinned until the commit is durable). */
  beforeCommit(): void;
  /**
   * Where a commit is made durable after COMMIT returns, when the connection commits at `synchronous = NORMAL` for
   * FULL's guarantee (sqlite-wal-sync.ts); absent, COMMIT itself is durable (or durability was not asked for).
   */
  walSync?: WalSync;
  /** Runs once a commit is durable, before its members are answered (the pinned read snapshot is let go there). */
  afterSync?(): void;
  /**
   * With `walSync`: runs the checkpoint off the event loop (sqlite-wal-checkpoint.ts); no batch starts until it is over.
   * Absent, or when it fails, the checkpoint runs here on the write connection.
   */
  checkpoint?: () => Promise<void>;
}

/**
 * Group commit on the write connection. Transactions that begin in the same event-loop turn wait for its end, then
 * run one after another in one SQLite transaction, each inside a savepoint (its failure rolls back only its own work);
 * the batch commits as soon as none is left waiting, or when it is full. The batch's commit is synced to disk once
 * (with `synchronous = FULL` inside COMMIT; see `walSync`), so requests arriving together share one fsync; a member's
 * commit resolves only after it, so nothing is answered before it is on disk. The write lock is held only while the
 * batch runs, never across a turn.
 *
 * With `walSync` (what a file opened at FULL uses) the COMMIT does not sync: the sync runs on the thread pool while the
 * event loop goes on (reads, parsing, the next batch's members running), and the next batch commits once it is done, so
 * at most one commit is ever not yet durable, and `beforeCommit`/`afterSync` keep reads on the state before it until it is.
 */
export class GroupCommitter {
  readonly stats: GroupCommitStats = { commits: 0, members: 0 };
  private readonly waiting: { start: () => void; fail: (err: unknown) => void }[] = [];
  private batch: Batch | undefined;
  /** A member holds the connection (between its savepoint and its release). */
  private running = false;
  private startScheduled = false;
  /** When the batch about to start first found the write lock held by another connection. */
  private lockWaitSince: number | undefined;
  /** A committed batch's sync is in flight: the next batch may run meanwhile, and commits once it is over. */
  private syncing: Promise<void> | undefined;
  /** A sync failed: what is committed may not be on disk, so no further write is taken (the process must restart). */
  private failed: Error | undefined;
  private checkpointedAt = performance.now();
  /** A checkpoint is running off the event loop: the next batch starts when it is over. */
  private checkpointing: Promise<void> | undefined;
  private readonly startAtTurnEnd = (): void => {
    this.startScheduled = false;
    this.startBatch();
  };

  constructor(
    private readonly statements: StatementCache,
    private readonly opts: GroupCommitOptions,
  ) {}

  /** Waits for this member's turn in a batch, then opens its savepoint. */
  async enter(): Promise<Batch> {
    if (this.failed !== undefined) throw this.failed;
    await new Promise<void>((start, fail) => {
      this.waiting.push({ start, fail });
      // A batch open and idle (run, waiting for the sync to commit) takes it at once.
      if (this.batch === undefined) this.scheduleBatch();
      else this.next();
    });
    const batch = this.batch;
    try {
      if (batch === undefined) throw new Error('group commit: a member started without a batch');
      this.exec('SAVEPOINT member');
      batch.members++;
      return batch;
    } catch (err) {
      this.running = false;
      this.next();
      throw err;
    }
  }

  /** A statement of the member holding the connection. */
  run(batch: Batch, sql: string, parameters: readonly unknown[]): QueryResult<unknown> {
    if (batch.lost !== undefined) throw batch.lost;
    try {
      return runStatement(this.statements.get(sql), parameters);
    } catch (err) {
      if (!this.statements.connection.inTransaction) this.lose(batch, err);
      throw err;
    }
  }

  /** Ends the member: keeps its work (resolves once the batch is durable) or rolls it back alone. */
  async leave(batch: Batch, keep: boolean): Promise<void> {
    try {
      if (batch.lost !== undefined) throw batch.lost;
      if (!keep) this.exec('ROLLBACK TO member');
      this.exec('RELEASE member');
    } catch (err) {
      if (!this.statements.connection.inTransaction) this.lose(batch, err);
      if (keep) throw err;
    } finally {
      this.running = false;
      this.next();
    }
    if (keep) await batch.durable;
  }

  /** Commits now what an open batch holds and waits until it is durable (on close). */
  async flush(): Promise<void> {
    await this.syncing;
    await this.checkpointing;
    if (!this.running) this.commit();
    await this.syncing;
  }

  private scheduleBatch(): void {
    if (this.startScheduled) return;
    this.startScheduled = true;
    setImmediate(this.startAtTurnEnd);
  }

  private startBatch(): void {
    if (this.batch !== undefined || this.waiting.length === 0 || this.checkpointing !== undefined) return;
    // A checkpoint due runs between the sync and the next batch (synced): the WAL can start over only then.
    if (this.syncing !== undefined && this.checkpointDue()) return;
    try {
      // IMMEDIATE: take the write lock here, not fail on the first write once another process has taken it.
      this.exec('BEGIN IMMEDIATE');
    } catch (err) {
      if (this.waitForLock(err)) return;
      this.lockWaitSince = undefined;
      for (const member of this.waiting.splice(0)) member.fail(err);
      return;
    }
    this.lockWaitSince = undefined;
    this.batch = newBatch();
    this.next();
  }

  /**
   * Another process holds the write lock (a CLI job): try again in a moment, from a timer, until `lockWaitMs` has passed.
   * SQLite's busy wait would block the event loop meanwhile, and back off ever longer, so missing the gaps between a job's
   * slices; polling keeps reads answering and gets in within a millisecond or so of the lock's release.
   */
  private waitForLock(err: unknown): boolean {
    const code = (err as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('SQLITE_BUSY')) return false;
    const now = performance.now();
    this.lockWaitSince ??= now;
    if (now - this.lockWaitSince >= this.opts.lockWaitMs) return false;
    this.startScheduled = true;
    setTimeout(this.startAtTurnEnd, LOCK_RETRY_MS);
    return true;
  }

  /** Starts the next waiting member in the open batch; commits when none is waiting or the batch is full. */
  private next(): void {
    if (this.running) return;
    const batch = this.batch;
    if (batch && (this.waiting.length === 0 || batch.members >= this.opts.maxMembers)) {
      // The previous batch's sync is in flight: this one commits when it is over (synced), so at most one commit is not yet durable.
      if (this.syncing !== undefined) return;
      this.commit();
    }
    const member = this.batch === undefined ? undefined : this.waiting.shift();
    if (member) {
      this.running = true;
      member.start();
    } else if (this.waiting.length > 0) {
      this.scheduleBatch();
    }
  }

  private commit(): void {
    const batch = this.batch;
    if (!batch || this.syncing !== undefined) return;
    this.batch = undefined;
    if (this.failed !== undefined) {
      // Run while the failed sync was in flight: not committed, since nothing after it can be vouched for either.
      this.statements.connection.exec('ROLLBACK');
      batch.settle(this.failed);
      return;
    }
    this.opts.beforeCommit();
    try {
      this.exec('COMMIT');
    } catch (err) {
      if (this.statements.connection.inTransaction) this.statements.connection.exec('ROLLBACK');
      batch.settle(err);
      return;
    }
    this.stats.commits++;
    this.stats.members += batch.members;
    const walSync = this.opts.walSync;
    if (walSync === undefined) {
      batch.settle();
      return;
    }
    this.syncing = walSync.sync().then(
      () => this.synced(batch),
      (err: unknown) => this.synced(batch, err),
    );
  }

  /**
   * A batch's sync is over: its members are answered; then the batch that ran meanwhile commits, or (none open) the
   * checkpoint runs when due and the members that queued start the next one.
   */
  private synced(batch: Batch, err?: unknown): void {
    this.syncing = undefined;
    if (err !== undefined) {
      // As PostgreSQL does on a failed fsync: the kernel may have dropped the pages, so nothing committed can be vouched for.
      this.failed = Object.assign(new Error('the SQLite write-ahead log could not be synced to disk: writes are refused until the gateway restarts', { cause: err }), { code: 'SQLITE_IOERR_FSYNC' });
      for (const member of this.waiting.splice(0)) member.fail(this.failed);
    }
    this.opts.afterSync?.();
    batch.settle(err === undefined ? undefined : this.failed);
    // After the answers (the settled members resume first).
    setImmediate(() => {
      if (this.batch !== undefined) {
        this.next();
        return;
      }
      if (this.checkpointIfDue()) return;
      this.startBatch();
    });
  }

  private checkpointDue(): boolean {
    return performance.now() - this.checkpointedAt >= CHECKPOINT_EVERY_MS;
  }

  /**
   * With `walSync` the connection's automatic checkpoint is off: inside COMMIT it would run while the read snapshot is
   * pinned, never copy the last commit back, and so never let the WAL start over. Here no snapshot of ours is pinned,
   * and no batch writes until the checkpoint is over, so reads meanwhile see the last commit and hold nothing back.
   * Returns true when the checkpoint runs off the event loop: the next batch then starts when it ends.
   */
  private checkpointIfDue(): boolean {
    if (!this.checkpointDue() || !this.statements.connection.open || this.statements.connection.inTransaction) return false;
    this.checkpointedAt = performance.now();
    const offLoop = this.opts.checkpoint;
    if (offLoop === undefined) {
      this.checkpointHere();
      return false;
    }
    // Writes wait for it, as they would for the inline one: a WAL written to meanwhile could not start over.
    this.checkpointing = offLoop()
      .catch(() => this.checkpointHere())
      .finally(() => {
        this.checkpointing = undefined;
        this.startBatch();
      });
    return true;
  }

  private checkpointHere(): void {
    if (!this.statements.connection.open) return;
    try {
      this.statements.connection.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Another process checkpointing, or a read of its own holding frames: the next one is due soon.
    }
  }

  /** SQLite rolled the whole transaction back: every member of the batch fails with the cause. */
  private lose(batch: Batch, err: unknown): void {
    batch.lost = err instanceof Error ? err : new Error(String(err));
    if (this.batch === batch) this.batch = undefined;
    batch.settle(err);
  }

  private exec(sql: string): void {
    this.statements.get(sql).run();
  }
}
