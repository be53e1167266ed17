import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from './clock.js';
import { pace } from './pacer.js';
import type { LoadSignal } from './requests-in-flight.js';

/** The longest background work waits between rounds under any load: it slows down, it never stops. */
export const MAX_YIELD_WAIT_MS = 1000;

/** How long requests seen in flight count as a load going on: a steady load has moments with none in flight. */
const RECENT_LOAD_MS = 1000;

/** How often a round waiting its turn looks again: the round ahead may end, or the requests finish, before its wait is up. */
const WAIT_LOOK_MS = 20;

/** A round of background work let through: hand it back to `end` when the round is over. */
export interface YieldGrant {
  startedAt: number;
}

/**
 * Background work that yields to requests. With no request in flight its rounds run back to back; while requests are
 * in flight one round runs at a time and, after a round that took `t` ms (on the clock, waits included, so what it
 * used of the main thread is at most that), the next waits `t × (1 − share) / share` ms, capped at MAX_YIELD_WAIT_MS:
 * the work takes at most `share` of the time, and at least one round a second.
 */
export class YieldToRequests {
  private notBefore = 0;
  private running = 0;
  /** When a look last found requests in flight. */
  private loadSeenAt = -Infinity;
  /** Rounds waiting in `granted` for their turn now. */
  waiting = 0;

  constructor(
    private readonly load: LoadSignal,
    private readonly clock: Clock,
    /** Of the time while requests are in flight, the most background rounds may take (0 < share <= 1). */
    private readonly share: number,
  ) {}

  /** Whether requests are in flight now (rounds are paced). */
  get busy(): boolean {
    if (!this.load.busy) return false;
    this.loadSeenAt = this.clock.now().getTime();
    return true;
  }

  /**
   * Whether requests are in flight now or were at a look within the last second: what sizes a background write. Under a
   * steady load the moment a chunk is sized often has none in flight (answered, the next not read yet).
   */
  get underLoad(): boolean {
    return this.busy || this.clock.now().getTime() - this.loadSeenAt < RECENT_LOAD_MS;
  }

  /** How long until a round may start; 0 when it may start now. */
  waitMs(): number {
    if (!this.busy) return 0;
    if (this.running > 0) return MAX_YIELD_WAIT_MS;
    return Math.max(0, this.notBefore - this.clock.now().getTime());
  }

  /** Lets a round start now, or answers undefined (it waits: waitMs says how long). */
  begin(): YieldGrant | undefined {
    if (this.waitMs() > 0) return undefined;
    this.running += 1;
    return { startedAt: this.clock.now().getTime() };
  }

  /** Waits for a round's turn (sleeping, so requests run meanwhile) and starts it: hand the grant back to `end`. */
  async granted(): Promise<YieldGrant> {
    // Rounds back to back still let the event loop turn every few ms: a request that arrived meanwhile is only in
    // flight (and the rounds paced) once the loop has read it.
    await pace();
    for (let grant = this.begin(); ; grant = this.begin()) {
      if (grant !== undefined) return grant;
      this.waiting += 1;
      try {
        await sleep(Math.min(this.waitMs(), WAIT_LOOK_MS));
      } finally {
        this.waiting -= 1;
      }
    }
  }

  /** `work` as one round, when its turn comes. Rounds must not nest: the inner would wait for the outer while busy. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const grant = await this.granted();
    try {
      return await work();
    } finally {
      this.end(grant);
    }
  }

  end(grant: YieldGrant): void {
    this.running -= 1;
    const now = this.clock.now().getTime();
    const spent = Math.max(0, now - grant.startedAt);
    this.notBefore = now + Math.min((spent * (1 - this.share)) / this.share, MAX_YIELD_WAIT_MS);
  }
}
