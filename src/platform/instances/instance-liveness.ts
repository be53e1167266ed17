import type { Logger } from 'pino';
import { AppError } from '../core/errors.js';
import { leaseOwnerId } from '../core/ids.js';
import type { Dialect } from '../db/database.js';
import { DATABASE_RETRY_AFTER_SECONDS } from '../db/faults.js';
import type { Db, Executor } from '../db/schema.js';
import * as repo from './instances.repository.js';

/**
 * What a call fails with when another process took over what it held (an idempotency key, an EDI lease): that process
 * judged this one dead because its heartbeats stalled past INSTANCE_TTL_MS, as they do while a PostgreSQL primary is
 * away, and now finishes the work itself. Nothing of this call's change commits, and a retry gets the other one's
 * answer: 503 with Retry-After, never a 500 (docs/decisions.md, [16/20]).
 */
export function holdLost(what: string): AppError {
  return new AppError('unavailable', `${what} was taken over by another gateway process while this request ran; retry shortly for its answer`, undefined, {
    'retry-after': String(DATABASE_RETRY_AFTER_SECONDS),
  });
}

/** Instances silent this long are deleted from the registry (by the next process that stops cleanly). */
const FORGET_MS = 24 * 60 * 60 * 1000;

/**
 * This process as an owner of claims and leases, and the judge of whether another owner still lives: each process
 * heartbeats in `gateway_instances` every ttl/4 on the database's clock; an owner whose last beat is older than
 * INSTANCE_TTL_MS is dead, and what it held may be taken over. Its own claims are never taken from a live process.
 */
export class InstanceLiveness {
  /** Random per process start, so a restarted process never inherits its predecessor's claims. */
  readonly id = leaseOwnerId('gateway');
  private started: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly options: { ttlMs: number; log?: Logger },
  ) {}

  get ttlMs(): number {
    return this.options.ttlMs;
  }

  /** Registers this process and starts its heartbeat, once: called before it first claims anything others can see. */
  start(): Promise<void> {
    this.started ??= this.register();
    return this.started;
  }

  /** Whether `owner` still beats (this process always does). A null owner is a claim made before owners were recorded. */
  async isLive(owner: string | null): Promise<boolean> {
    if (owner === this.id) return true;
    if (owner === null) return false;
    return repo.isLive(this.db, this.dialect, owner, this.options.ttlMs);
  }

  /** The ids of the live instances, as a subquery for a statement that takes over what dead ones held. */
  liveIds(db: Executor = this.db) {
    return repo.liveIds(db, this.dialect, this.options.ttlMs);
  }

  /** Whether another process beats on this database (a `serve`): a CLI job then leaves the background work to it. */
  async othersLive(): Promise<boolean> {
    return (await this.liveIds().where('id', '!=', this.id).executeTakeFirst()) !== undefined;
  }

  /** Stops beating and leaves the registry: what this process still owned is free at once for the others. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    if (this.started === undefined) return;
    this.started = undefined;
    await repo.remove(this.db, this.dialect, this.id, FORGET_MS).catch((err: unknown) => this.options.log?.warn({ err }, 'could not leave the instance registry'));
  }

  private async register(): Promise<void> {
    try {
      await repo.beat(this.db, this.dialect, this.id, new Date().toISOString());
    } catch (err) {
      this.started = undefined;
      throw err;
    }
    // Four beats per TTL: one late or failed beat does not make a live process look dead.
    this.timer = setInterval(() => void this.beat(), Math.max(50, Math.floor(this.options.ttlMs / 4)));
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    try {
      await repo.beat(this.db, this.dialect, this.id, new Date().toISOString());
    } catch (err) {
      this.options.log?.warn({ err }, 'instance heartbeat failed');
    }
  }
}
