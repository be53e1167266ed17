/**
 * The circuit breaker of one connection: closed -> open after 5 failures in a row; open for a cooldown that doubles
 * from 1 minute to 30 while trials fail; once the cooldown is over, half-open lets one trial poll through.
 */
export const FAILURES_TO_OPEN = 5;
const FIRST_COOLDOWN_S = 60;
const MAX_COOLDOWN_S = 30 * 60;

type BreakerStateName = 'closed' | 'open' | 'half_open';

export interface Breaker {
  state: BreakerStateName;
  consecutive_failures: number;
  open_until: string | null;
  cooldown_s: number;
}

export const CLOSED: Breaker = { state: 'closed', consecutive_failures: 0, open_until: null, cooldown_s: 0 };

/** Whether a poll may go now: `trial` when the cooldown is over (the poll is the half-open trial). */
export function admission(b: Breaker, now: Date): 'go' | 'trial' | 'wait' {
  if (b.state === 'closed') return 'go';
  if (b.open_until !== null && b.open_until > now.toISOString()) return 'wait';
  return 'trial';
}

/**
 * After a failed poll: count it; a failed trial reopens for twice as long, the fifth failure in a row opens. `openNow`
 * (the vendor refused the request itself, a 4xx) opens at once: the same request at the interval would fare no better.
 */
export function afterFailure(b: Breaker, now: Date, openNow = false): Breaker {
  const failures = b.consecutive_failures + 1;
  const cooldown = b.state === 'closed' ? (failures >= FAILURES_TO_OPEN || openNow ? FIRST_COOLDOWN_S : 0) : Math.min(MAX_COOLDOWN_S, Math.max(FIRST_COOLDOWN_S, b.cooldown_s * 2));
  if (cooldown === 0) return { ...CLOSED, consecutive_failures: failures };
  return { state: 'open', consecutive_failures: failures, open_until: new Date(now.getTime() + cooldown * 1000).toISOString(), cooldown_s: cooldown };
}
