import type { Db, Executor } from '../db/schema.js';
import { invalidInput, notFound } from '../core/errors.js';
import type { OrgsService } from '../orgs/orgs.service.js';
import { DUE_NOW, type OutboxStatus } from './outbox.tables.js';
import * as repo from './outbox.repository.js';

export interface DeliveryView {
  id: string;
  org_id: string;
  destination: string;
  target: string | null;
  type: string;
  status: OutboxStatus;
  attempts: number;
  /** null once nothing more will be tried, or when it is due now. */
  next_attempt_at: string | null;
  lease_owner: string | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** A delivery as REST, MCP and EDI clients see it. */
export interface PublicDelivery {
  status: 'queued' | 'delivered' | 'rejected';
  attempts: number;
  last_error: string | null;
}

/** The public shape of a delivery state (as `deliverNow` returns it); none yet, or in flight, is "queued": not delivered until the destination said so. */
export function toPublicDelivery(state: repo.DeliveryState | undefined): PublicDelivery {
  const status = state === undefined || state.status === 'delivering' ? 'queued' : state.status;
  return { status, attempts: state?.attempts ?? 0, last_error: state?.last_error ?? null };
}

function toView(row: Awaited<ReturnType<typeof repo.listDeliveries>>[number]): DeliveryView {
  const pending = row.status === 'queued' || row.status === 'delivering';
  return {
    id: row.id,
    org_id: row.org_id,
    destination: row.destination,
    target: row.target,
    type: row.type,
    status: row.status,
    attempts: Number(row.attempts),
    next_attempt_at: pending && row.next_attempt_at !== DUE_NOW ? row.next_attempt_at : null,
    lease_owner: row.status === 'delivering' ? row.lease_owner : null,
    last_error: row.last_error,
    created_at: row.created_at,
    delivered_at: row.delivered_at,
  };
}

/** The outbox seen from outside it: the operator's view (CLI) with retries, and the public delivery state modules show. */
export class DeliveriesService {
  constructor(private readonly db: Db, private readonly orgs: OrgsService) {}

  /** Public state of the deliveries that exist among `ids`, by id; `db` may be the caller's transaction. */
  async publicStates(db: Executor, ids: string[]): Promise<Map<string, PublicDelivery>> {
    return new Map((await repo.findStates(db, ids)).map((s) => [s.id, toPublicDelivery(s)]));
  }

  /** The deliveries that exist among `ids`, by id (a module's view of its own deliveries); `db` may be the caller's transaction. */
  async views(db: Executor, ids: readonly string[]): Promise<Map<string, DeliveryView>> {
    return new Map((await repo.findViews(db, ids)).map((row) => [row.id, toView(row)]));
  }

  /** Makes one of the org's rejected or waiting deliveries due now, attempts reset, in the caller's transaction. */
  async retryIn(db: Executor, orgId: string, id: string): Promise<boolean> {
    return (await repo.requeue(db, { id, orgId, onlyRejected: false })) > 0;
  }

  async list(opts: { status?: OutboxStatus; orgSlug?: string; limit: number }): Promise<DeliveryView[]> {
    const orgId = opts.orgSlug === undefined ? undefined : (await this.orgs.bySlug(opts.orgSlug)).id;
    const rows = await repo.listDeliveries(this.db, {
      ...(orgId === undefined ? {} : { orgId }),
      ...(opts.status === undefined ? {} : { status: opts.status }),
      limit: opts.limit,
    });
    return rows.map(toView);
  }

  /** Makes one rejected or waiting delivery due now, with its attempt count reset. */
  async retry(id: string): Promise<{ retried: number }> {
    const [state] = await repo.findStates(this.db, [id]);
    if (!state) throw notFound(`delivery ${id}`);
    if (state.status === 'delivered') throw invalidInput(`delivery ${id} was already delivered`);
    if (state.status === 'delivering') throw invalidInput(`delivery ${id} is being delivered right now`);
    return { retried: await repo.requeue(this.db, { id, onlyRejected: false }) };
  }

  async retryAllRejected(orgSlug?: string): Promise<{ retried: number }> {
    const orgId = orgSlug === undefined ? undefined : (await this.orgs.bySlug(orgSlug)).id;
    return { retried: await repo.requeue(this.db, { ...(orgId === undefined ? {} : { orgId }), onlyRejected: true }) };
  }
}
