import type { RateLimitDecision, RateLimitStore } from './ratelimit.types.js';
import { applyHit, type WindowState } from './sliding-window.js';

interface Entry extends WindowState {
  /** After this instant both counters have rolled out, so the entry equals no entry. */
  staleAtMs: number;
}

/** In-process store: exact for one gateway instance; each instance has its own budget. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly entries = new Map<string, Entry>();
  private nextSweepMs = -Infinity;

  /** Number of keys currently held (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }

  hit(key: string, limit: number, windowMs: number, nowMs: number): RateLimitDecision {
    this.sweep(nowMs, windowMs);
    const { decision, state } = applyHit(this.entries.get(key), nowMs, windowMs, limit);
    // Rejected hits change nothing, as in the Redis script; rolling forward later gives the same state.
    if (decision.allowed) this.entries.set(key, { ...state, staleAtMs: state.windowStart + 2 * windowMs });
    return decision;
  }

  close(): Promise<void> {
    this.entries.clear();
    return Promise.resolve();
  }

  /** Drops rolled-out keys at most once per window, so a full scan costs O(1) amortised per hit. */
  private sweep(nowMs: number, windowMs: number): void {
    if (nowMs < this.nextSweepMs) return;
    this.nextSweepMs = nowMs + windowMs;
    for (const [key, entry] of this.entries) {
      if (entry.staleAtMs <= nowMs) this.entries.delete(key);
    }
  }
}
