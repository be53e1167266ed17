import { setImmediate } from 'node:timers/promises';
import type { Clock } from '../../../../platform/core/clock.js';
import type { CpuPool } from '../../../../platform/core/cpu-pool.js';
import type { Db } from '../../../../platform/db/schema.js';
import { holdLost, type InstanceLiveness } from '../../../../platform/instances/instance-liveness.js';
import { newId } from '../../../../platform/core/ids.js';
import type { Settle } from '../../../../platform/operations/operation.js';
import type { OrderIntakeDeps } from '../order-intake.js';
import type { EdiPartnersService } from '../../partners/partners.service.js';
import { sha256HexPaced } from '../interchange-bytes.js';
import * as messages from '../messages.repository.js';

// Step 1 of the intake, receive: the body is stored byte for byte before anything can fail.

export interface IntakeDeps extends OrderIntakeDeps {
  db: Db;
  clock: Clock;
  partners: EdiPartnersService;
  /** Worker threads: a body is parsed and checked there. */
  cpu: CpuPool;
  /** This process as the holder of the interchanges it takes in slices: held while it lives (INSTANCE_TTL_MS). */
  instances: InstanceLiveness;
  /** The most of a received body stored in one transaction (EDI_RECEIVE_PIECE_BYTES). */
  receivePieceBytes: number;
  /** This process's releases of leases its failed calls held, kept apart from its takes (LeaseReleases). */
  leases: LeaseReleases;
}

/** A stored inbound message the later steps work on: the body, or one interchange of a body of several. */
export interface Received {
  orgId: string;
  messageId: string;
  sha: string;
  at: Date;
  /** The body's message, when this is one of several interchanges in it. */
  parentId?: string;
  /** Records the call's answer in the transaction of the step that settles it (the body's message only). */
  settleCall: Settle;
}

/**
 * Stores `bytes` as a received inbound message (under `parent` when it is one interchange of a larger body). A body
 * over one piece (EDI_RECEIVE_PIECE_BYTES) is stored a piece a transaction, its row `arriving` until the last; the same
 * bytes received again finish a body a stopped process left arriving, as that message.
 */
export async function storeReceived(deps: IntakeDeps, orgId: string, bytes: Buffer, settleCall: Settle, parentId?: string): Promise<Received> {
  const at = deps.clock.now();
  const received: Received = { orgId, messageId: newId('msg', at), sha: await sha256HexPaced(bytes), at, settleCall, ...(parentId === undefined ? {} : { parentId }) };
  const row = receivedRow(received, bytes.length);
  const perPiece = messages.chunksIn(deps.receivePieceBytes);
  if (messages.chunkCount(bytes) <= perPiece) {
    await messages.insertReceived(deps.db, row, bytes);
    return received;
  }
  // Registered before the row names this process as its holder: another process must never see a holder it cannot find.
  await deps.instances.start();
  const left = parentId === undefined ? await takeArrivingBody(deps, received, bytes.length) : undefined;
  const storing = left ?? received;
  await whileHeld(deps, storing, async () => {
    const stored = left === undefined ? 0 : await messages.countChunks(deps.db, orgId, left.messageId);
    await storeInPieces(deps, storing, left === undefined ? row : undefined, bytes, stored, perPiece);
  });
  return storing;
}

function receivedRow(received: Received, size: number): Omit<messages.MessageRow, 'raw'> {
  const iso = received.at.toISOString();
  return {
    id: received.messageId,
    org_id: received.orgId,
    direction: 'inbound',
    partner_id: null,
    type: null,
    control_number: null,
    status: 'received',
    size,
    sha256: received.sha,
    errors: null,
    http_status: null,
    result: null,
    related_id: null,
    parent_id: received.parentId ?? null,
    order_id: null,
    sets_total: null,
    lease_owner: null,
    created_at: iso,
    updated_at: iso,
  };
}

/** The same bytes left arriving by a stopped process, taken over by this call (which then answers as that message). */
async function takeArrivingBody(deps: IntakeDeps, received: Received, size: number): Promise<Received | undefined> {
  const now = deps.clock.now().toISOString();
  const left = await deps.leases.take(
    () => messages.takeArriving(deps.db, received.orgId, { sha256: received.sha, size }, deps.instances.id, deps.instances.liveIds(), now),
    (taken) => taken?.id,
  );
  if (left === undefined) return undefined;
  return { ...received, messageId: left.id, at: new Date(left.created_at) };
}

/**
 * Writes the chunks of `bytes` from `from` on, `perPiece` a transaction with a yield between: the first creates the row
 * (`row`, unless it exists) as `arriving` and held by this process, the last makes it `received`. A piece under a lease
 * another process took over (this one judged dead) rolls back.
 */
async function storeInPieces(deps: IntakeDeps, received: Received, row: Omit<messages.MessageRow, 'raw'> | undefined, bytes: Buffer, from: number, perPiece: number): Promise<void> {
  const total = messages.chunkCount(bytes);
  for (let seq = from; seq < total; seq += perPiece) {
    const now = deps.clock.now().toISOString();
    await deps.db.transaction().execute(async (tx) => {
      if (row !== undefined && seq === from) {
        await messages.insertMessages(tx, [{ ...row, status: 'arriving', lease_owner: deps.instances.id, raw: Buffer.alloc(0) }]);
      } else if (!(await messages.touchHeld(tx, received.orgId, received.messageId, deps.instances.id, now))) {
        throw holdLost(`EDI message ${received.messageId}`);
      }
      await messages.insertChunks(tx, received.orgId, received.messageId, bytes, seq, seq + perPiece);
      if (seq + perPiece >= total) await messages.updateMessage(tx, received.orgId, received.messageId, { status: 'received', lease_owner: null, updated_at: now });
    });
    await setImmediate();
  }
}

/** Marks a message whose processing threw: the bytes stay stored, the status says it failed. */
export async function markFailed(deps: IntakeDeps, received: Received): Promise<void> {
  await messages.updateMessage(deps.db, received.orgId, received.messageId, { status: 'failed', updated_at: deps.clock.now().toISOString() });
}

/** How long a process keeps trying to give up a lease, and how often: past that, its heartbeats stopping frees it. */
const RELEASE_FOR_MS = 5 * 60_000;
const RELEASE_EVERY_MS = 250;

interface PendingRelease {
  orgId: string;
  messageId: string;
  giveUpAt: number;
  timer?: NodeJS.Timeout;
}

/**
 * The leases this process's failed calls still mean to give up, released in the background while the database is away,
 * and this process's takes of a lease on an existing message, one at a time. A release is conditional on the owner,
 * and the owner is the process, not the call: a release still pending when this process takes the same message again
 * for a later call (the client's retry, a resend, landing here) would free that call's lease under it, and the call
 * would find its lease gone mid-take. So a take never overlaps a release attempt, and drops the pending release of the
 * message it took (a release whose commit was in doubt and is retried included). See docs/decisions.md, [16/20].
 */
export class LeaseReleases {
  private readonly pending = new Map<string, PendingRelease>();
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly instances: Pick<InstanceLiveness, 'id'>,
    private readonly clock: Clock,
  ) {}

  /** Gives up this process's lease on `message` in the background, retrying while the database is away. */
  later(message: { orgId: string; messageId: string }): void {
    const entry: PendingRelease = { orgId: message.orgId, messageId: message.messageId, giveUpAt: this.clock.now().getTime() + RELEASE_FOR_MS };
    const before = this.pending.get(message.messageId);
    if (before !== undefined) clearTimeout(before.timer);
    this.pending.set(message.messageId, entry);
    this.attempt(entry);
  }

  /**
   * Runs `take`, a statement that may lease a message to this process, apart from any release attempt; when it took
   * one (`takenId` of its result), a release of that message still pending is dropped: the lease is a live call's now.
   */
  take<T>(take: () => Promise<T>, takenId: (result: T) => string | undefined): Promise<T> {
    return this.exclusive(async () => {
      const result = await take();
      const id = takenId(result);
      const pending = id === undefined ? undefined : this.pending.get(id);
      if (pending !== undefined) {
        clearTimeout(pending.timer);
        this.pending.delete(pending.messageId);
      }
      return result;
    });
  }

  /** Releases not yet through (tests read it). */
  get size(): number {
    return this.pending.size;
  }

  private attempt(entry: PendingRelease): void {
    entry.timer = undefined;
    void this.exclusive(async () => {
      // Dropped by a take, or replaced by a later call's release, meanwhile.
      if (this.pending.get(entry.messageId) !== entry) return;
      try {
        await messages.releaseLease(this.db, entry.orgId, entry.messageId, this.instances.id);
        this.pending.delete(entry.messageId);
      } catch {
        if (this.clock.now().getTime() < entry.giveUpAt) entry.timer = setTimeout(() => this.attempt(entry), RELEASE_EVERY_MS).unref();
        else this.pending.delete(entry.messageId);
      }
    });
  }

  /** One release attempt or take at a time, in order of arrival. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.turn.then(work, work);
    this.turn = run.catch(() => undefined);
    return run;
  }
}

/**
 * Runs `work`, which takes (or may have taken) the lease on `message` for this process; when it throws, this process
 * no longer takes the interchange, and the lease is released, or a resend would wait for this live process to finish
 * what nobody is taking (a database fault answered 503 mid-interchange; see docs/decisions.md, PostgreSQL failover).
 */
export async function whileHeld<T>(deps: IntakeDeps, message: { orgId: string; messageId: string }, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    // In the background, retrying while the database is away: the fault that stopped the work usually fails the
    // release too (the primary gone, the standby not yet promoted). Only a lease this process holds on a message
    // without an answer is released (messages.releaseLease).
    deps.leases.later(message);
    throw err;
  }
}
