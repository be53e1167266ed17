import type { SendOutcome } from './delivery-sender.js';
import type { ClaimedDelivery } from './outbox.repository.js';

/** Where a delivery goes: its destination kind and, for a partner, its URL. A recovery is per place. */
export interface Place {
  destination: string;
  target: string | null;
}

const keyOf = (place: Place): string => `${place.destination}\n${place.target ?? ''}`;

/**
 * Tells when a place answers again after failing, so what waits on backoff for it can go at once instead of each row
 * waiting out its own delay (the tail after an outage). A place recovered when a send delivers to it after this
 * process saw it take nothing, or when a row it took had failed before (another process may have seen the outage).
 */
export class RecoveryWatch {
  private readonly failing = new Set<string>();

  /** The places `outcome` shows recovered (their backed-off rows are to be released), noting those it shows failing. */
  observe(batch: readonly ClaimedDelivery[], outcome: SendOutcome): Place[] {
    const delivered = new Set(outcome.delivered);
    const retried = new Set(outcome.retry?.ids ?? []);
    const byPlace = new Map<string, { place: Place; delivered: boolean; retried: boolean; failedBefore: boolean }>();
    for (const row of batch) {
      const key = keyOf(row);
      const seen = byPlace.get(key) ?? { place: { destination: row.destination, target: row.target }, delivered: false, retried: false, failedBefore: false };
      if (delivered.has(row.id)) {
        seen.delivered = true;
        // attempts counts this one: above 1, an earlier attempt did not get through.
        if (row.attempts > 1) seen.failedBefore = true;
      }
      if (retried.has(row.id)) seen.retried = true;
      byPlace.set(key, seen);
    }
    const recovered: Place[] = [];
    for (const [key, seen] of byPlace) {
      if (seen.delivered) {
        if (this.failing.delete(key) || seen.failedBefore) recovered.push(seen.place);
      } else if (seen.retried) {
        this.failing.add(key);
      }
    }
    return recovered;
  }
}
