import type { Logger } from 'pino';
import type { Clock } from '../../../platform/core/clock.js';
import type { Dialect } from '../../../platform/db/database.js';
import type { Db } from '../../../platform/db/schema.js';
import { AppError } from '../../../platform/core/errors.js';
import { type BackgroundWorker, SlotLoop } from '../../../platform/core/work-loop.js';
import { retryAfterOf, VendorRejectedError, VendorUnavailableError } from '../providers/adapter.js';
import type { ConnectionRow } from '../connections/connections.repository.js';
import type { PollService } from './poll.service.js';
import { claimDueConnections, releaseClaim } from './poller.repository.js';

interface PollerOptions {
  /** Polls in flight in this process, all providers together. */
  concurrency: number;
  /** Polls in flight in this process for one provider (vendors limit concurrent calls per client). */
  perProvider: number;
  /** How long to wait before looking again when nothing was due. */
  idleMs: number;
  log: Logger;
}

/**
 * Every `serve` process runs one: claims due connections with a lease and polls them with bounded concurrency, overall
 * and per provider; a vendor's 429/503 Retry-After holds back that provider's other polls in this process too.
 */
export class TelematicsPoller implements BackgroundWorker {
  readonly name = 'telematics-poller';
  private readonly slots: SlotLoop;
  private readonly perProvider = new Map<string, number>();
  /** Per provider, until when (on the injected clock) a Retry-After asked us to wait. */
  private readonly waitUntil = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly clock: Clock,
    private readonly polling: PollService,
    private readonly options: PollerOptions,
  ) {
    this.slots = new SlotLoop(options.concurrency, () => this.tick(), {
      idleMs: options.idleMs,
      onError: (err) => this.options.log.warn({ err }, 'claiming due connections failed'),
    });
  }

  start(): void {
    this.slots.start();
  }

  stop(): Promise<void> {
    return this.slots.stop();
  }

  /** Resolves when the polls started so far have finished (tests and shutdown). */
  idle(): Promise<void> {
    return this.slots.idle();
  }

  /** One round: claims as many due connections as free slots allow and starts their polls; answers how many started. */
  async tick(): Promise<number> {
    const free = this.slots.free;
    if (free <= 0) return 0;
    const now = this.clock.now();
    const rows = await claimDueConnections(this.db, this.dialect, {
      owner: this.polling.owner,
      nowIso: now.toISOString(),
      leaseUntil: new Date(now.getTime() + this.polling.leaseMs).toISOString(),
      limit: free,
      skipProviders: this.busyProviders(now.getTime()),
    });
    let started = 0;
    for (const row of rows) {
      if ((this.perProvider.get(row.provider) ?? 0) >= this.options.perProvider) {
        await releaseClaim(this.db, row.id, this.polling.owner);
        continue;
      }
      this.begin(row);
      started += 1;
    }
    return started;
  }

  private busyProviders(nowMs: number): string[] {
    const busy = [...this.perProvider].filter(([, n]) => n >= this.options.perProvider).map(([p]) => p);
    const waiting = [...this.waitUntil].filter(([, until]) => until > nowMs).map(([p]) => p);
    return [...new Set([...busy, ...waiting])];
  }

  private begin(row: ConnectionRow): void {
    this.perProvider.set(row.provider, (this.perProvider.get(row.provider) ?? 0) + 1);
    const poll = this.polling
      .pollClaimed(row)
      .then(() => undefined)
      .catch((err: unknown) => {
        // The poll recorded its failure on the connection (breaker, last_error); here only the provider-wide wait.
        const retryAfter = retryAfterOf(err) ?? 0;
        if (retryAfter > 0) this.waitUntil.set(row.provider, this.clock.now().getTime() + retryAfter * 1000);
        const foreseen = err instanceof AppError || err instanceof VendorRejectedError || err instanceof VendorUnavailableError;
        if (!foreseen) this.options.log.warn({ err }, `poll of ${row.id} failed unexpectedly`);
      })
      .finally(() => {
        this.perProvider.set(row.provider, (this.perProvider.get(row.provider) ?? 1) - 1);
      });
    this.slots.hold(row.id, poll);
  }
}
