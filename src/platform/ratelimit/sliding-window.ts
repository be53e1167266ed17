import type { RateLimitDecision } from './ratelimit.types.js';

/**
 * Two-counter weighted sliding window, shared by every store so they decide identically.
 * The Lua script in redis-store.ts mirrors rollWindow() and admits(); change them together.
 *
 * The previous window's count is assumed spread evenly, so at `elapsed` ms into the current
 * window the sliding window still holds previous * (windowMs - elapsed) / windowMs of it.
 * Admission is decided on that estimate scaled by windowMs, in integers, because JS and
 * Lua (both IEEE doubles) then compare exact values and cannot disagree on a rounding.
 */
export interface WindowState {
  /** Start (epoch ms) of the current fixed window; a multiple of windowMs. */
  windowStart: number;
  /** Admitted requests in the current fixed window. */
  current: number;
  /** Admitted requests in the fixed window just before it. */
  previous: number;
}

/** Start of the fixed window containing nowMs (nowMs >= 0, integers). */
export function windowStartOf(nowMs: number, windowMs: number): number {
  return nowMs - (nowMs % windowMs);
}

/**
 * Moves a stored state forward to the window containing nowMs.
 * A stored window later than nowMs's (a caller whose clock lags another instance's) is kept:
 * windows never move backwards, so a lagging clock cannot resurrect an exhausted budget.
 */
export function rollWindow(stored: WindowState | undefined, nowMs: number, windowMs: number): WindowState {
  const start = windowStartOf(nowMs, windowMs);
  if (stored === undefined) return { windowStart: start, current: 0, previous: 0 };
  if (stored.windowStart >= start) return { ...stored };
  if (stored.windowStart + windowMs === start) return { windowStart: start, current: 0, previous: stored.current };
  return { windowStart: start, current: 0, previous: 0 };
}

/** Ms into the state's window; 0 when the window was kept ahead of a lagging clock. */
function elapsedIn(state: WindowState, nowMs: number): number {
  return Math.max(0, nowMs - state.windowStart);
}

/** The estimate times windowMs: previous * (windowMs - elapsed) + current * windowMs, an exact integer. */
function scaledEstimate(state: WindowState, nowMs: number, windowMs: number): number {
  return state.previous * (windowMs - elapsedIn(state, nowMs)) + state.current * windowMs;
}

/** Requests estimated inside the sliding window ending at nowMs (for display; decisions use the scaled form). */
export function estimate(state: WindowState, nowMs: number, windowMs: number): number {
  return scaledEstimate(state, nowMs, windowMs) / windowMs;
}

/** True when one more request fits: estimate + 1 <= limit. */
export function admits(state: WindowState, nowMs: number, windowMs: number, limit: number): boolean {
  return scaledEstimate(state, nowMs, windowMs) + windowMs <= limit * windowMs;
}

/** Requests that would be admitted back to back at nowMs. */
export function remainingAt(state: WindowState, nowMs: number, windowMs: number, limit: number): number {
  // floor(x / windowMs) is exact here: both are integers below 2^53.
  const fits = Math.floor((limit * windowMs - state.previous * (windowMs - elapsedIn(state, nowMs))) / windowMs) - state.current;
  return Math.max(0, fits);
}

/**
 * Ms from nowMs until a request would be admitted, assuming nothing else is admitted meanwhile.
 * Only meaningful when admits() is false; the result is then > 0.
 */
export function retryAfterMs(state: WindowState, nowMs: number, windowMs: number, limit: number): number {
  const { windowStart, current, previous } = state;
  // Still inside this window: the previous window's weight decays until previous * (W - t) <= (limit - current - 1) * W.
  if (current + 1 <= limit && previous > 0) {
    const t = windowMs - Math.floor(((limit - current - 1) * windowMs) / previous);
    if (t < windowMs) return windowStart + Math.max(t, elapsedIn(state, nowMs)) - nowMs;
  }
  // Next window: `current` becomes the previous count, which decays until current * (W - t) <= (limit - 1) * W.
  const next = current === 0 ? 0 : Math.max(0, windowMs - Math.floor(((limit - 1) * windowMs) / current));
  return windowStart + windowMs + next - nowMs;
}

/**
 * Builds the caller-facing decision from the state after the hit (incremented when admitted). The reset is when one
 * request more than `remaining` fits, had the client spent `remaining` at once: waited, it admits the next request
 * (not the fixed window's end, which the previous window's weight outlives).
 */
export function decide(allowed: boolean, state: WindowState, nowMs: number, windowMs: number, limit: number): RateLimitDecision {
  const remaining = allowed ? remainingAt(state, nowMs, windowMs, limit) : 0;
  const spent = { ...state, current: state.current + remaining };
  const resetSeconds = Math.max(1, Math.ceil(retryAfterMs(spent, nowMs, windowMs, limit) / 1000));
  return { allowed, limit, remaining, resetSeconds, retryAfterSeconds: allowed ? 0 : resetSeconds, windowSeconds: windowSecondsOf(windowMs) };
}

/** The window in whole seconds, at least 1, as the RateLimit-Policy field states it. */
export function windowSecondsOf(windowMs: number): number {
  return Math.max(1, Math.ceil(windowMs / 1000));
}

/** One whole hit against a state, for in-process stores: returns the decision and the state to keep. */
export function applyHit(
  stored: WindowState | undefined,
  nowMs: number,
  windowMs: number,
  limit: number,
): { decision: RateLimitDecision; state: WindowState } {
  const state = rollWindow(stored, nowMs, windowMs);
  const allowed = admits(state, nowMs, windowMs, limit);
  if (allowed) state.current += 1;
  return { decision: decide(allowed, state, nowMs, windowMs, limit), state };
}
