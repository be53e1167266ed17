import { z } from 'zod';
import type { Clock } from '../../../platform/core/clock.js';
import { AppError, invalidInput, notFound } from '../../../platform/core/errors.js';
import { newId } from '../../../platform/core/ids.js';
import type { YieldToRequests } from '../../../platform/core/yield-to-requests.js';
import { decodeCursor, page } from '../../../platform/core/pagination.js';
import type { Db, Executor, Tx } from '../../../platform/db/schema.js';
import { enqueueDeliveries, hubDelivery } from '../../../platform/outbox/outbox.js';
import * as connections from '../connections/connections.repository.js';
import { retryAfterOf, VendorDocumentInvalidError, VendorRejectedError, VendorUnavailableError } from '../providers/adapter.js';
import { findProvider } from '../providers/catalog.js';
import type { ProviderEndpoints } from '../providers/endpoints.js';
import type { Equipment, NormalizedEvent } from '../providers/event.js';
import type { ReaderContext, VendorReader } from '../providers/reader.js';
import { readerFor } from '../providers/readers.js';
import { vendorError } from '../providers/vendor-errors.js';
import type { ListSyncsQuery, Sync } from '../telematics.schemas.js';
import { BackgroundWrites, type ChunkSizes } from './background-writes.js';
import { notPollable, type PollService } from './poll.service.js';
import * as repo from './syncs.repository.js';

export const SYNC_COMPLETED = 'telematics.sync.completed';
export const SYNC_FAILED = 'telematics.sync.failed';

const cursorSchema = z.object({ id: z.string() });
/**
 * Events one transaction of a slice writes: idle, 400, ~20 ms on SQLite (a 31-day slice of the simulator is ~700 events,
 * 30-75 ms in one transaction; docs/decisions.md, "Big jobs in slices"); while requests are in flight 100: ~30 ms a 400
 * under load, so a read could wait that long behind one, 100 keeps each under ~10 ms ("[16/20] The replay sync yields to
 * requests"). Idle, the fewer commits win.
 */
const SLICE_WRITE_CHUNK: ChunkSizes = { idle: 400, busy: 100 };

/** The first retry of a failed slice waits this long, doubling up to the cap (or longer when the vendor asks). */
const RETRY_BASE_MS = 30_000;
const RETRY_CAP_MS = 15 * 60_000;

/** This holder no longer holds the sync (cancelled, or its claim ran out and another process took it): stop, write nothing. */
class HoldLost extends Error {}

interface SyncOptions {
  /** How long a sync's holder keeps it without progress (each slice written renews it); then another process may. */
  leaseMs: number;
  /** Failures in a row of one slice before the sync fails. */
  maxAttempts: number;
  /** The sync's reads of pages and writes run as its rounds (SYNC_SHARE_WHEN_BUSY). */
  yields: YieldToRequests;
}

export function presentSync(row: repo.SyncRow): Sync {
  return {
    id: row.id,
    connection_id: row.connection_id,
    status: row.status,
    from: row.window_from,
    to: row.window_to,
    progress: { machines_done: row.machines_done, machines_total: row.machines_total, events_enqueued: row.events_enqueued },
    failure_reason: row.failure_reason,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}

/** A vendor's answer that trying again will not change: refused credentials, a 4xx other than 408/429, a document it cannot read. */
function permanent(err: unknown): boolean {
  if (err instanceof VendorRejectedError || err instanceof VendorDocumentInvalidError || err instanceof AppError) return true;
  const status = err instanceof VendorUnavailableError ? err.status : undefined;
  return status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/**
 * Replays as background syncs: POST .../replay queues one; the sync worker runs it slice by slice (one machine x one
 * data element over the window), each slice's events written with the progress in one transaction, under the sync's
 * own claim, so the connection's regular polls go on and a restart resumes after the last slice written.
 */
export class SyncService {
  /** Every write of a step is a round of the sync's budget. */
  private readonly writes: BackgroundWrites;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly endpoints: ProviderEndpoints,
    private readonly polling: PollService,
    private readonly options: SyncOptions,
  ) {
    this.writes = new BackgroundWrites(db, options.yields);
  }

  get leaseMs(): number {
    return this.options.leaseMs;
  }

  /** What the sync's work yields to: the requests this process answers. */
  get yields(): YieldToRequests {
    return this.options.yields;
  }

  /** POST .../replay: a queued sync of the window, in the caller's transaction. */
  async create(tx: Tx, orgId: string, connectionId: string, window: { from: Date; to: Date }): Promise<Sync> {
    const now = this.clock.now();
    // "Not in the future" is on the gateway's clock, so it is checked here rather than in the schema.
    if (window.to > now) throw invalidInput('to must not be in the future', [{ path: 'to', message: 'must not be in the future' }]);
    const connection = await connections.findConnection(tx, orgId, connectionId);
    if (connection === undefined) throw notFound(`connection ${connectionId}`);
    const provider = findProvider(connection.provider);
    const reader = provider === undefined ? undefined : readerFor(provider);
    if (reader?.series === undefined || reader.history === undefined) {
      throw new AppError('history_unavailable', `${connection.provider} keeps no history the gateway can read: only ISO 15143-3 feeds can be replayed`);
    }
    if (provider === undefined || this.endpoints.of(provider) === undefined) throw new AppError('unavailable', `${connection.provider} is not configured on this gateway`);
    const why = notPollable(connection, now);
    if (why !== undefined) throw new AppError('connection_not_active', `connection ${connectionId} cannot be read: ${why}`);
    const row: repo.SyncRow = {
      id: newId('syn', now),
      org_id: orgId,
      connection_id: connectionId,
      status: 'queued',
      window_from: window.from.toISOString(),
      window_to: window.to.toISOString(),
      elements: null,
      slices_done: 0,
      machines_done: 0,
      machines_total: 0,
      events_enqueued: 0,
      attempts: 0,
      next_attempt_at: null,
      failure_reason: null,
      lease_owner: null,
      lease_until: null,
      created_at: now.toISOString(),
      started_at: null,
      finished_at: null,
      updated_at: now.toISOString(),
    };
    await repo.insertSync(tx, row);
    return presentSync(row);
  }

  async list(db: Executor, orgId: string, connectionId: string, query: ListSyncsQuery): Promise<{ syncs: Sync[]; next_cursor: string | null }> {
    const after = decodeCursor(query.cursor, cursorSchema);
    if ((await connections.findConnection(db, orgId, connectionId)) === undefined) throw notFound(`connection ${connectionId}`);
    const rows = await repo.listSyncs(db, orgId, connectionId, { limit: query.limit, beforeId: after?.id, status: query.status });
    const { items, next_cursor } = page(rows, query.limit, (row) => ({ id: row.id }));
    return { syncs: items.map(presentSync), next_cursor };
  }

  async get(db: Executor, orgId: string, connectionId: string, syncId: string): Promise<Sync> {
    const row = await repo.findSync(db, orgId, connectionId, syncId);
    if (row === undefined) throw notFound(`sync ${syncId} of connection ${connectionId}`);
    return presentSync(row);
  }

  /** POST .../cancel: ends a queued or running sync at once; its holder stops at the next slice (whose write is refused). */
  async cancel(tx: Tx, orgId: string, connectionId: string, syncId: string): Promise<Sync> {
    const row = await repo.findSync(tx, orgId, connectionId, syncId);
    if (row === undefined) throw notFound(`sync ${syncId} of connection ${connectionId}`);
    if (!(await repo.cancelSync(tx, orgId, syncId, this.clock.now().toISOString()))) throw new AppError('invalid_transition', `sync ${syncId} already ended (${row.status})`, { status: row.status, requested: 'cancelled', allowed: [] });
    await repo.deleteMachines(tx, syncId);
    const cancelled = await repo.findSync(tx, orgId, connectionId, syncId);
    if (cancelled === undefined) throw notFound(`sync ${syncId} of connection ${connectionId}`);
    return presentSync(cancelled);
  }

  /**
   * One step of a sync `owner` holds: the first lists the machines, each next one reads one slice. Answers the sync as it
   * stands after, or undefined when this holder is done with it (ended, cancelled, taken over, or waiting to retry).
   */
  async step(row: repo.SyncRow, owner: string): Promise<repo.SyncRow | undefined> {
    const connection = await connections.findConnection(this.db, row.org_id, row.connection_id);
    if (connection === undefined) return this.end(row, owner, 'failed', 'the connection no longer exists');
    const why = notPollable(connection, this.clock.now());
    if (why !== undefined) return this.end(row, owner, 'failed', `the connection cannot be read: ${why}`);
    try {
      // Waiting for the vendor's budget keeps this sync's claim alive, not the connection's.
      const renew = async () => void (await repo.updateHeld(this.db, row.id, owner, { lease_until: this.leaseUntil(), updated_at: this.clock.now().toISOString() }));
      const { reader, ctx } = await this.polling.readerOf(connection, undefined, { renew, yields: this.yields });
      if (reader.series === undefined || reader.history === undefined) return await this.end(row, owner, 'failed', `${connection.provider} keeps no history the gateway can read`);
      if (row.elements === null) return await this.plan(row, owner, reader.history, ctx);
      return await this.slice(row, owner, reader.series.bind(reader), ctx);
    } catch (err) {
      if (err instanceof HoldLost) return undefined;
      return this.failedAttempt(row, owner, err, connection.provider);
    }
  }

  /** Gives the claim back (the sync stays running): the next round of any process goes on from its last slice. */
  async release(row: repo.SyncRow, owner: string): Promise<void> {
    await repo.updateHeld(this.db, row.id, owner, { lease_owner: null, lease_until: null, updated_at: this.clock.now().toISOString() });
  }

  private leaseUntil(): string {
    return new Date(this.clock.now().getTime() + this.options.leaseMs).toISOString();
  }

  /** The first step: the fleet's machines and the data elements, stored so every later slice (and a resume) reads the same list. */
  private async plan(row: repo.SyncRow, owner: string, history: NonNullable<VendorReader['history']>, ctx: ReaderContext): Promise<repo.SyncRow | undefined> {
    const machines = await history.machines(ctx);
    const next: repo.SyncRow = { ...row, elements: JSON.stringify(history.elements), machines_total: machines.length, attempts: 0, next_attempt_at: null, lease_until: this.leaseUntil(), updated_at: this.clock.now().toISOString() };
    return this.writes.transaction(async (tx) => {
      await this.hold(tx, next, owner);
      await repo.insertMachines(tx, machines.map((m, position) => ({ sync_id: row.id, position, pin: m.pin, equipment: JSON.stringify(m.equipment) })));
      return machines.length === 0 ? this.finish(tx, next, owner, 'completed', null) : next;
    });
  }

  /** One machine x one data element over the window: its events, the last of them with the progress in one transaction; the last slice ends the sync. */
  private async slice(row: repo.SyncRow, owner: string, series: NonNullable<VendorReader['series']>, ctx: ReaderContext): Promise<repo.SyncRow | undefined> {
    const elements = JSON.parse(row.elements ?? '[]') as string[];
    const machine = await repo.machineAt(this.db, row.id, Math.floor(row.slices_done / elements.length));
    const element = elements[row.slices_done % elements.length];
    if (machine === undefined || element === undefined) return this.end(row, owner, 'failed', `slice ${row.slices_done} names no machine or data element`);
    const events: NormalizedEvent[] = [];
    const range = { start: new Date(row.window_from), end: new Date(row.window_to), machines: [{ pin: machine.pin, equipment: JSON.parse(machine.equipment) as Equipment }], elements: [element] };
    for await (const batch of series(ctx, range)) events.push(...batch);
    const slicesDone = row.slices_done + 1;
    const next: repo.SyncRow = {
      ...row,
      slices_done: slicesDone,
      machines_done: Math.floor(slicesDone / elements.length),
      events_enqueued: row.events_enqueued + events.length,
      attempts: 0,
      next_attempt_at: null,
      lease_until: this.leaseUntil(),
      updated_at: this.clock.now().toISOString(),
    };
    // All but the last chunk of events in transactions of their own, the holder checked in each; a process dying among
    // them leaves the slice to be read again, and its events (deterministic ids) are kept once by the outbox. Each
    // transaction is a round of the sync's share.
    const size = this.writes.size(SLICE_WRITE_CHUNK);
    const last = Math.max(0, events.length - size);
    for (let i = 0; i < last; i += size) {
      const chunk = events.slice(i, Math.min(i + size, last));
      await this.writes.transaction(async (tx) => {
        if (!(await repo.updateHeld(tx, row.id, owner, { lease_until: this.leaseUntil(), updated_at: this.clock.now().toISOString() }))) throw new HoldLost();
        await this.polling.enqueue(tx, row.org_id, chunk);
      });
    }
    return this.writes.transaction(async (tx) => {
      await this.hold(tx, next, owner);
      await this.polling.enqueue(tx, row.org_id, events.slice(last));
      return slicesDone >= row.machines_total * elements.length ? this.finish(tx, next, owner, 'completed', null) : next;
    });
  }

  /** Writes the holder's progress, or throws HoldLost (rolling the step back) when it holds the sync no more. */
  private async hold(tx: Tx, row: repo.SyncRow, owner: string): Promise<void> {
    const { slices_done, machines_done, machines_total, events_enqueued, elements, attempts, next_attempt_at, lease_until, updated_at } = row;
    const held = await repo.updateHeld(tx, row.id, owner, { slices_done, machines_done, machines_total, events_enqueued, elements, attempts, next_attempt_at, lease_until, updated_at });
    if (!held) throw new HoldLost();
  }

  /** Ends the sync in `tx`, its machines list dropped and its hub event (the sync as the API shows it) queued with it. */
  private async finish(tx: Tx, row: repo.SyncRow, owner: string, status: 'completed' | 'failed', reason: string | null): Promise<undefined> {
    const now = this.clock.now();
    const ended: repo.SyncRow = { ...row, status, failure_reason: reason, finished_at: now.toISOString(), updated_at: now.toISOString(), lease_owner: null, lease_until: null, next_attempt_at: null };
    const held = await repo.updateHeld(tx, row.id, owner, { status, failure_reason: reason, finished_at: ended.finished_at, updated_at: ended.updated_at, lease_owner: null, lease_until: null, next_attempt_at: null });
    if (!held) throw new HoldLost();
    await repo.deleteMachines(tx, row.id);
    await enqueueDeliveries(tx, [hubDelivery({ type: status === 'completed' ? SYNC_COMPLETED : SYNC_FAILED, orgId: row.org_id, data: presentSync(ended), at: now })]);
    return undefined;
  }

  private async end(row: repo.SyncRow, owner: string, status: 'completed' | 'failed', reason: string | null): Promise<undefined> {
    try {
      return await this.db.transaction().execute((tx) => this.finish(tx, row, owner, status, reason));
    } catch (err) {
      if (err instanceof HoldLost) return undefined;
      throw err;
    }
  }

  /** A failed step: the sync fails when trying again will not help or has not; else the slice waits and is retried by any process. */
  private async failedAttempt(row: repo.SyncRow, owner: string, err: unknown, providerId: string): Promise<undefined> {
    const cause = vendorError(err, providerId);
    const message = cause instanceof Error ? cause.message : String(cause);
    const attempts = row.attempts + 1;
    if (permanent(err)) return this.end(row, owner, 'failed', message);
    if (attempts >= this.options.maxAttempts) return this.end(row, owner, 'failed', `${message} (gave up after ${attempts} attempts)`);
    const now = this.clock.now();
    const waitMs = Math.max(Math.min(RETRY_BASE_MS * 2 ** (attempts - 1), RETRY_CAP_MS), (retryAfterOf(err) ?? 0) * 1000);
    await repo.updateHeld(this.db, row.id, owner, { attempts, next_attempt_at: new Date(now.getTime() + waitMs).toISOString(), lease_owner: null, lease_until: null, updated_at: now.toISOString() });
    return undefined;
  }
}
