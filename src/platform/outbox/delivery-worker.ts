import type { Logger } from 'pino';
import type { Clock } from '../core/clock.js';
import type { Dialect } from '../db/database.js';
import type { Db } from '../db/schema.js';
import { leaseOwnerId } from '../core/ids.js';
import type { DeliverySender, DrainStep, SendOutcome } from './delivery-sender.js';
import { backoffDelayMs } from './hub-client.js';
import type { OutboxMetrics } from './outbox.metrics.js';
import type { DeliveryLease } from './outbox.js';
import * as repo from './outbox.repository.js';
import { WorkLoop } from '../core/work-loop.js';
import type { YieldGrant, YieldToRequests } from '../core/yield-to-requests.js';
import { RecoveryWatch } from './recovery-watch.js';

interface DeliveryWorkerOptions {
  db: Db;
  dialect: Dialect;
  clock: Clock;
  senders: DeliverySender[];
  metrics: OutboxMetrics;
  leaseMs: number;
  pollMs: number;
  /** Batches in flight at once per process. */
  concurrency: number;
  /** Timeout of the attempt made right after a change commits (HUB_TIMEOUT_MS). */
  immediateTimeoutMs: number;
  /** Timeout of a background batch (HUB_BATCH_TIMEOUT_MS). */
  batchTimeoutMs: number;
  log: Logger;
}

/** A delivery a destination rejected for good, as a listener sees it. */
export interface Rejection {
  id: string;
  orgId: string;
  /** The delivery's payload as queued (a hub event's JSON). */
  payload: string;
  reason: string;
  at: string;
}

type RejectionListener = (rejections: readonly Rejection[]) => Promise<void>;

/** The worker's side of "deliver after commit": services call it with the ids they just queued. */
export interface DeliverAfterCommit {
  /**
   * The lease to write a delivery to `destination` with, inside the change's transaction, when this process will send
   * it right after commit; undefined when it will not (no sender for it here, paused by a Retry-After, closing).
   */
  leaseForNow(destination: string): DeliveryLease | undefined;
  deliverNow(ids: string[]): Promise<Map<string, repo.DeliveryState>>;
}

/**
 * Drains the outbox: claims due deliveries with a lease, sends them per destination in batches, and
 * records each outcome. Retries back off exponentially with jitter (Retry-After wins when longer), and the first
 * delivery after a destination failed releases the rest of its backlog at once (RecoveryWatch);
 * rejections are final until an operator retries them; a lease that runs out (a crashed process)
 * makes its rows due again, so nothing is lost and the destination's dedup absorbs the replay.
 */
export class DeliveryWorker implements DeliverAfterCommit {
  private readonly workerId = leaseOwnerId('delivery');
  /** The owner of the leases written with a change (leaseForNow); under workerId, so closing releases them too. */
  private readonly nowOwner = `${this.workerId}:now`;
  private claimSeq = 0;
  private closing = false;
  /** Batches in flight at once: each lane claims, sends and records one batch at a time. */
  private readonly lanes: WorkLoop[];
  /** Changes waiting for their deliveries' first try; each is answered with where its deliveries stand after it. */
  private readonly immediate: { ids: string[]; started: boolean; done: (states: Map<string, repo.DeliveryState>) => void }[] = [];
  private flushing = false;
  /** The immediate sends in flight, so closing waits for their outcomes before it releases leases. */
  private flush: Promise<void> = Promise.resolve();
  /** Per destination, set by a Retry-After: until then this process sends it nothing (on the injected clock). */
  private readonly pausedUntil = new Map<string, number>();
  private readonly rejectionListeners = new Map<string, RejectionListener[]>();
  private readonly recovery = new RecoveryWatch();
  private readonly steps: DrainStep[] = [];

  constructor(private readonly options: DeliveryWorkerOptions) {
    // A round that handled nothing, or whose destination is failing, waits a poll interval instead of spinning; one that
    // held work back to yield to requests wakes when that work may run again.
    this.lanes = Array.from({ length: options.concurrency }, () => {
      let heldBack: YieldToRequests[] = [];
      const drain = async (): Promise<boolean> => {
        const { handled, failing, yielded } = await this.drainBatches();
        heldBack = yielded;
        return handled > 0 && !failing;
      };
      const idleMs = () => Math.min(options.pollMs, ...heldBack.map((y) => Math.max(1, y.waitMs())));
      return new WorkLoop(drain, { idleMs, onError: (err) => this.options.log.warn({ err }, 'delivery batch failed; retrying after a pause') });
    });
  }

  /**
   * Calls `listener` with the deliveries of `type` a destination rejected (after they are marked rejected), so the
   * module that queued them can show them where its users look (a telematics connection's last hub rejections).
   */
  onRejected(type: string, listener: RejectionListener): void {
    this.rejectionListeners.set(type, [...(this.rejectionListeners.get(type) ?? []), listener]);
  }

  private async tellRejections(batch: readonly repo.ClaimedDelivery[], rejected: readonly { id: string; reason: string }[], at: Date): Promise<void> {
    const byId = new Map(batch.map((row) => [row.id, row]));
    const byType = new Map<string, Rejection[]>();
    for (const rejection of rejected) {
      const row = byId.get(rejection.id);
      if (row === undefined || !this.rejectionListeners.has(row.type)) continue;
      byType.set(row.type, [...(byType.get(row.type) ?? []), { id: rejection.id, orgId: row.org_id, payload: row.payload, reason: rejection.reason, at: at.toISOString() }]);
    }
    for (const [type, rejections] of byType) {
      for (const listener of this.rejectionListeners.get(type) ?? []) {
        // A listener's failure must not undo the outcome already recorded: it is logged, not thrown.
        await listener(rejections).catch((err: unknown) => this.options.log.warn({ err }, `rejection listener for ${type} failed`));
      }
    }
  }

  /** Adds the sender of a destination a module owns (webhook endpoints), before `start`. */
  addSender(sender: DeliverySender): void {
    this.options.senders.push(sender);
  }

  /** Adds work a module runs at the start of every drain round, before the sends (webhooks' fan-out), before `start`. */
  addStep(step: DrainStep): void {
    this.steps.push(step);
    this.options.metrics.addQueue(step.name, () => step.pending());
  }

  /** Whether any destination can be delivered to (a destination without a sender, the hub without HUB_URL, waits in the outbox). */
  get active(): boolean {
    return this.options.senders.length > 0 || this.steps.length > 0;
  }

  start(): void {
    if (!this.active) return;
    for (const lane of this.lanes) lane.start();
  }

  /** Stops claiming, lets batches in flight finish and record their outcome. */
  async stop(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.stop()));
  }

  /** Stops, then hands back any delivery this process still holds (see releaseLeases) and closes the senders. */
  async close(): Promise<void> {
    this.closing = true;
    await this.stop();
    await this.flush;
    try {
      await repo.releaseLeases(this.options.db, this.workerId, this.options.clock.now().toISOString());
    } catch (err) {
      // The database is gone: the leases run out by themselves (OUTBOX_LEASE_MS).
      this.options.log.warn({ err }, 'could not release outbox leases');
    }
    await Promise.all(this.options.senders.map((s) => s.close()));
  }

  /** Claims and sends one batch per destination; returns how many deliveries it handled. */
  async drainOnce(): Promise<number> {
    return (await this.drainBatches()).handled;
  }

  private async drainBatches(): Promise<{ handled: number; failing: boolean; yielded: YieldToRequests[] }> {
    let handled = 0;
    let failing = false;
    // Senders that yield to requests share one grant a round: each gets its batch in it, none starves another.
    const grants = new Map<YieldToRequests, YieldGrant | undefined>();
    const granted = (yields: YieldToRequests | undefined): boolean => {
      if (yields === undefined) return true;
      if (!grants.has(yields)) grants.set(yields, yields.begin());
      return grants.get(yields) !== undefined;
    };
    try {
      for (const step of this.steps) {
        if (!granted(step.yields)) continue;
        try {
          const done = await step.run();
          handled += done;
          this.options.metrics.count(step.name, 'delivered', done);
        } catch (err) {
          // Its work stays pending for the next round; the sends of this one still go.
          this.options.log.warn({ err }, `${step.name} failed; retrying after a pause`);
          failing = true;
        }
      }
      for (const sender of this.options.senders) {
        const now = this.options.clock.now();
        if (this.paused(sender, now)) continue;
        if (!granted(sender.yields)) continue;
        const owner = this.nextOwner();
        const batch = await repo.claimDue(this.options.db, this.options.dialect, {
          destination: sender.destination,
          owner,
          now: now.toISOString(),
          leaseUntil: new Date(now.getTime() + this.options.leaseMs).toISOString(),
          limit: sender.maxBatch,
        });
        if (batch.length === 0) continue;
        handled += batch.length;
        if (await this.sendAndRecord(sender, owner, batch, this.options.batchTimeoutMs)) failing = true;
      }
    } finally {
      for (const [yields, grant] of grants) if (grant !== undefined) yields.end(grant);
    }
    return { handled, failing, yielded: [...grants].flatMap(([yields, grant]) => (grant === undefined ? [yields] : [])) };
  }

  leaseForNow(destination: string): DeliveryLease | undefined {
    const sender = this.options.senders.find((s) => s.destination === destination);
    const now = this.options.clock.now();
    if (this.closing || sender === undefined || this.paused(sender, now)) return undefined;
    return { owner: this.nowOwner, until: new Date(now.getTime() + this.options.leaseMs).toISOString() };
  }

  /**
   * Tries the deliveries a change just committed, with the short timeout, and reports where each stands.
   * Never throws: the change is committed either way, and the worker retries what is left.
   */
  async deliverNow(ids: string[]): Promise<Map<string, repo.DeliveryState>> {
    if (!this.active || ids.length === 0) return this.statesOf(ids);
    let timer: NodeJS.Timeout | undefined;
    const states = await new Promise<Map<string, repo.DeliveryState> | undefined>((resolve) => {
      const entry = { ids, started: false, done: resolve };
      // Stuck behind a send in flight for a whole timeout: answer now; the ids still go out with the next send.
      timer = setTimeout(() => {
        if (!entry.started) resolve(undefined);
      }, this.options.immediateTimeoutMs);
      this.immediate.push(entry);
      if (!this.flushing) this.flush = this.flushImmediate();
    });
    clearTimeout(timer);
    return states ?? this.statesOf(ids);
  }

  /** Where these deliveries stand; none known when the database cannot say (the answer then shows them queued). */
  private async statesOf(ids: string[]): Promise<Map<string, repo.DeliveryState>> {
    try {
      return new Map((await repo.findStates(this.options.db, ids)).map((s) => [s.id, s]));
    } catch (err) {
      this.options.log.warn({ err }, 'could not read delivery state');
      return new Map();
    }
  }

  /**
   * Requests that commit while a send is in flight ride together in the next one: one claim, one batch, one outcome
   * write and one read of where they stand for all of them, so none of it is paid once per request under load.
   */
  private async flushImmediate(): Promise<void> {
    this.flushing = true;
    try {
      while (this.immediate.length > 0) {
        const group = this.immediate.splice(0);
        for (const g of group) g.started = true;
        const ids = group.flatMap((g) => g.ids);
        try {
          await this.sendImmediately(ids);
        } catch (err) {
          this.options.log.warn({ err }, 'immediate delivery failed; the worker will retry');
        }
        const states = await this.statesOf(ids);
        for (const g of group) g.done(states);
      }
    } finally {
      this.flushing = false;
    }
  }

  private async sendImmediately(ids: string[]): Promise<void> {
    const now = this.options.clock.now();
    const owner = this.nextOwner();
    const senders = this.options.senders.filter((sender) => !this.paused(sender, now));
    const destinations = senders.map((sender) => sender.destination);
    // Written leased to us with the change (leaseForNow): read, not claimed. The rest (queued without a lease) is claimed.
    const leased = await repo.findLeased(this.options.db, ids, this.nowOwner);
    const held = new Set(leased.map((row) => row.id));
    const rest = ids.filter((id) => !held.has(id));
    const claimed = rest.length === 0 ? [] : await repo.claimIds(this.options.db, rest, destinations, owner, new Date(now.getTime() + this.options.leaseMs).toISOString());
    for (const [rows, rowsOwner] of [[leased, this.nowOwner], [claimed, owner]] as const) {
      for (const sender of this.options.senders) {
        const mine = rows.filter((row) => row.destination === sender.destination);
        if (mine.length === 0) continue;
        if (!senders.includes(sender)) {
          // Paused by a Retry-After since the change was written: hand its rows to the drain for after the pause.
          await repo.reschedule(this.options.db, mine.map((row) => row.id), rowsOwner, new Date(this.pausedUntil.get(sender.destination) ?? now.getTime()).toISOString(), 'destination asked to wait (Retry-After)');
          continue;
        }
        for (let i = 0; i < mine.length; i += sender.maxBatch) {
          await this.sendAndRecord(sender, rowsOwner, mine.slice(i, i + sender.maxBatch), this.options.immediateTimeoutMs);
        }
      }
    }
  }

  /** Returns true when the destination took none of the batch (down, timing out, throttling). */
  private async sendAndRecord(sender: DeliverySender, owner: string, batch: repo.ClaimedDelivery[], timeoutMs: number): Promise<boolean> {
    let outcome: SendOutcome;
    try {
      outcome = await sender.send(owner, batch, { timeoutMs });
    } catch (err) {
      // A sender bug must not strand rows in `delivering` until the lease runs out.
      outcome = { delivered: [], duplicates: 0, rejected: [], retry: { ids: batch.map((r) => r.id), reason: `send failed: ${String(err)}` } };
    }
    const now = this.options.clock.now();
    const { destination } = sender;
    const retry = outcome.retry;
    const rows = new Map(batch.map((r) => [r.id, r]));
    const waitOf = new Map((outcome.waits ?? []).map((w) => [w.target, w.ms]));
    // Rows of one batch can be on different attempts and targets: one jittered delay per group, one write each.
    const groups = new Map<string, { attempts: number; wait: number; ids: string[] }>();
    for (const id of retry?.ids ?? []) {
      const row = rows.get(id);
      const attempts = row?.attempts ?? 1;
      const wait = Math.max(retry?.retryAfterMs ?? 0, waitOf.get(row?.target ?? '') ?? 0);
      const key = `${attempts}|${wait}`;
      const group = groups.get(key) ?? { attempts, wait, ids: [] };
      group.ids.push(id);
      groups.set(key, group);
    }
    // The whole outcome (and the sender's own records) in one transaction: one commit a batch, not one per write.
    const released = await this.options.db.transaction().execute(async (tx) => {
      await outcome.record?.(tx);
      await repo.markDelivered(tx, outcome.delivered, owner, now.toISOString());
      const freed: { place: { destination: string; target: string | null }; released: number }[] = [];
      for (const place of this.recovery.observe(batch, outcome)) freed.push({ place, released: await repo.releaseBackedOff(tx, place, now.toISOString()) });
      for (const rejection of outcome.rejected) await repo.markRejected(tx, rejection.id, owner, rejection.reason);
      for (const { attempts, wait, ids } of groups.values()) {
        const delay = Math.max(sender.retryDelayMs?.(attempts) ?? backoffDelayMs(attempts), wait);
        await repo.reschedule(tx, ids, owner, new Date(now.getTime() + delay).toISOString(), retry?.reason ?? '');
      }
      // A target that asked to wait gets nothing before then, from any process: its queued rows move to the end of the wait.
      for (const [target, ms] of waitOf) await repo.deferPlace(tx, { destination, target }, new Date(now.getTime() + ms).toISOString());
      return freed;
    });
    for (const { place, released: n } of released) if (n > 0) this.options.log.info({ ...place, released: n }, 'destination answers again: backed-off deliveries released');
    if (outcome.rejected.length > 0) await this.tellRejections(batch, outcome.rejected, now);
    this.options.metrics.count(destination, 'delivered', outcome.delivered.length - outcome.duplicates);
    this.options.metrics.count(destination, 'duplicate', outcome.duplicates);
    this.options.metrics.count(destination, 'rejected', outcome.rejected.length);
    if (retry === null) return false;
    this.options.metrics.count(destination, 'retry', retry.ids.length);
    // The destination asked us to slow down: every lane of this process waits, not just this batch.
    if (retry.retryAfterMs !== undefined) {
      this.pausedUntil.set(destination, Math.max(this.pausedUntil.get(destination) ?? 0, now.getTime() + retry.retryAfterMs));
    }
    return outcome.delivered.length === 0;
  }

  private paused(sender: DeliverySender, now: Date): boolean {
    return now.getTime() < (this.pausedUntil.get(sender.destination) ?? 0);
  }

  private nextOwner(): string {
    this.claimSeq += 1;
    return `${this.workerId}:${this.claimSeq}`;
  }
}
