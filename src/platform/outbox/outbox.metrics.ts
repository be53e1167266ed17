import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '../core/clock.js';
import type { Db } from '../db/schema.js';
import { queueStats, type QueueStats } from './outbox.repository.js';

type DeliveryOutcome = 'delivered' | 'duplicate' | 'rejected' | 'retry';

export interface OutboxMetrics {
  count(destination: string, outcome: DeliveryOutcome, n: number): void;
  /** A queue kept outside the outbox table (webhooks' pending fan-outs), shown in the gauges as a destination. */
  addQueue(destination: string, pending: () => Promise<{ depth: number; oldest_created_at: string | null }>): void;
}

/** One destination's stats from the outbox and from a queue kept elsewhere under its name, added together. */
function merged(stats: QueueStats | undefined, destination: string, other: { depth: number; oldest_created_at: string | null }): QueueStats {
  const base = stats ?? { destination, depth: 0, oldest_created_at: null, rejected: 0 };
  const oldest = [base.oldest_created_at, other.oldest_created_at].filter((at): at is string => at !== null).sort()[0] ?? null;
  return { ...base, depth: base.depth + other.depth, oldest_created_at: oldest };
}

/** Queue gauges are read from the database at scrape time, so every process reports the shared queue. */
export function registerOutboxMetrics(registry: Registry, db: Db, clock: Clock): OutboxMetrics {
  const outcomes = new Counter({
    name: 'gateway_outbox_deliveries_total',
    help: 'Deliveries finished by this process, by destination and outcome (delivered, duplicate, rejected, retry)',
    labelNames: ['destination', 'outcome'],
    registers: [registry],
  });
  const queues = new Map<string, () => Promise<{ depth: number; oldest_created_at: string | null }>>();
  const allStats = async (): Promise<QueueStats[]> => {
    const byDestination = new Map((await queueStats(db)).map((s) => [s.destination, s]));
    for (const [destination, pending] of queues) {
      const other = await pending();
      if (other.depth > 0 || byDestination.has(destination)) byDestination.set(destination, merged(byDestination.get(destination), destination, other));
    }
    return [...byDestination.values()];
  };
  let stats: Promise<QueueStats[]> | undefined;
  // One read per scrape (the outbox's query and each other queue's) feeds all three gauges.
  const currentStats = (): Promise<QueueStats[]> => {
    stats ??= allStats().finally(() => {
      setImmediate(() => {
        stats = undefined;
      });
    });
    return stats.catch(() => []);
  };
  new Gauge({
    name: 'gateway_outbox_queue_depth',
    help: 'Deliveries not yet delivered or rejected (queued or in flight), by destination',
    labelNames: ['destination'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const s of await currentStats()) this.set({ destination: s.destination }, s.depth);
    },
  });
  new Gauge({
    name: 'gateway_outbox_oldest_queued_age_seconds',
    help: 'Age of the oldest undelivered delivery, by destination',
    labelNames: ['destination'],
    registers: [registry],
    async collect() {
      this.reset();
      const now = clock.now().getTime();
      for (const s of await currentStats()) {
        if (s.oldest_created_at !== null) this.set({ destination: s.destination }, Math.max(0, (now - Date.parse(s.oldest_created_at)) / 1000));
      }
    },
  });
  new Gauge({
    name: 'gateway_outbox_rejected',
    help: 'Deliveries the destination rejected, waiting for an operator (deliveries retry), by destination',
    labelNames: ['destination'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const s of await currentStats()) this.set({ destination: s.destination }, s.rejected);
    },
  });
  return {
    count(destination, outcome, n) {
      if (n > 0) outcomes.inc({ destination, outcome }, n);
    },
    addQueue(destination, pending) {
      queues.set(destination, pending);
    },
  };
}
