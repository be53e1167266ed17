import type { DatabaseHandle } from '../db/database.js';
import { PreparedList, PreparedQuery } from '../db/prepared-query.js';
import type { PurgeTarget } from '../db/retention.js';
import type { Db, Tx } from '../db/schema.js';
import { newId } from '../core/ids.js';
import { purgeDelivered } from './outbox.repository.js';
import { DUE_NOW } from './outbox.tables.js';

// For a module's query that asks whether an outbox row is still to be sent (webhook retention).
export { pendingSql } from './outbox.tables.js';

/**
 * The transactional outbox: a change and the delivery that announces it are written in one
 * transaction, and the delivery worker sends them after commit.
 */

/** Destination kinds; each has a sender registered with the delivery worker. */
export const HUB_DESTINATION = 'hub';
/** A trading partner's endpoint: the payload is POSTed as is to the URL in `target` (EDI documents). */
export const PARTNER_DESTINATION = 'partner';

export interface DeliveryInput {
  orgId: string;
  destination: string;
  /** Destination-specific address (a partner id or URL); null for the hub. */
  target: string | null;
  type: string;
  contentType: string;
  payload: string;
  id: string;
  createdAt: string;
  /** A hub event's `data` as the JSON text in its payload (hubDelivery's): listeners reuse it instead of parsing the payload. */
  dataJson?: string;
}

/**
 * A delivery written already leased to the process that will send it right after commit (see AfterCommit):
 * no claim to run afterwards, and no background drain can take it first. If that process dies, the lease runs out
 * and the drain takes it like any other.
 */
export interface DeliveryLease {
  owner: string;
  /** ISO time the lease runs out. */
  until: string;
}

/** Rows per multi-row insert: 15 columns each keeps a statement well under SQLite's 32,766 bound parameters. */
const DELIVERY_CHUNK = 1000;

function deliveryRow(input: DeliveryInput, lease?: DeliveryLease) {
  return {
    id: input.id,
    org_id: input.orgId,
    destination: input.destination,
    target: input.target,
    type: input.type,
    content_type: input.contentType,
    payload: input.payload,
    status: lease ? ('delivering' as const) : ('queued' as const),
    // As a claim leaves it: the attempt counted, due again (to the drain) when the lease runs out.
    attempts: lease ? 1 : 0,
    next_attempt_at: lease?.until ?? DUE_NOW,
    lease_owner: lease?.owner ?? null,
    lease_until: lease?.until ?? null,
    last_error: null,
    created_at: input.createdAt,
    delivered_at: null,
  };
}

const insertDelivery = new PreparedQuery((tx, row: ReturnType<typeof deliveryRow>) =>
  tx
    .insertInto('outbox')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing()),
);

// Many at a time (an EDI slice's documents, a fan-out's endpoints): compiled once per row count.
const insertDeliveries = new PreparedList((tx, _v: object, rows: ReturnType<typeof deliveryRow>[]) =>
  tx
    .insertInto('outbox')
    .values(rows)
    .onConflict((oc) => oc.column('id').doNothing()),
);

/** What the unit of work of a transaction sends right after it commits (the operation invoker's, for a write). */
export interface AfterCommit {
  /** The lease to write a delivery with when this process will send it after commit, or undefined when it will not. */
  leaseFor(destination: string): DeliveryLease | undefined;
  /** The ids written leased: the ones to send after commit. */
  readonly leased: string[];
}

const afterCommitOf = new WeakMap<Tx, AfterCommit>();

/** Deliveries written in `tx` from now on are leased to `unit` and listed in it, to be sent when `tx` commits. */
export function sendAfterCommit(tx: Tx, unit: AfterCommit): void {
  afterCommitOf.set(tx, unit);
}

/**
 * Writes one delivery in the caller's transaction: leased to this process when the transaction's unit of work sends
 * it after commit (sendAfterCommit), queued for the drain otherwise. An id already queued is kept as it is (replays are
 * no-ops).
 */
async function enqueueDelivery(tx: Tx, input: DeliveryInput): Promise<string> {
  await tellQueued(tx, [input]);
  const unit = afterCommitOf.get(tx);
  const lease = unit?.leaseFor(input.destination);
  await insertDelivery.result(tx, deliveryRow(input, lease));
  if (lease !== undefined) unit?.leased.push(input.id);
  return input.id;
}

/** enqueueDelivery for many, a few multi-row statements in the caller's transaction. */
export async function enqueueDeliveries(tx: Tx, inputs: readonly DeliveryInput[]): Promise<void> {
  await tellQueued(tx, inputs);
  for (let i = 0; i < inputs.length; i += DELIVERY_CHUNK) {
    await insertDeliveries.result(tx, {}, inputs.slice(i, i + DELIVERY_CHUNK).map((input) => deliveryRow(input)));
  }
}

/** Told, in the transaction that queues them, of the hub events written there (webhooks fan out to an org's endpoints). */
export type HubEventsListener = (tx: Tx, events: readonly DeliveryInput[]) => Promise<void>;

// Keyed by the database's adapter, which its transactions share: each gateway in a process hears only its own database.
const hubEventsListeners = new WeakMap<object, HubEventsListener>();

/** `listener` hears every hub event queued in a transaction of `db`, inside that transaction. */
export function onHubEventsQueued(db: Db, listener: HubEventsListener): void {
  hubEventsListeners.set(db.getExecutor().adapter, listener);
}

async function tellQueued(tx: Tx, inputs: readonly DeliveryInput[]): Promise<void> {
  const listener = hubEventsListeners.get(tx.getExecutor().adapter);
  if (listener === undefined) return;
  const events = inputs.filter((input) => input.destination === HUB_DESTINATION);
  if (events.length > 0) await listener(tx, events);
}

/**
 * An event for the org's own subscribers (webhooks) that the hub does not take (an EDI message received): the
 * listeners hear it in `tx` as they hear a queued hub event; nothing is queued for the hub.
 */
export async function announceEvent(tx: Tx, event: HubEvent): Promise<void> {
  await hubEventsListeners.get(tx.getExecutor().adapter)?.(tx, [hubDelivery(event)]);
}

/**
 * Queues a hub event in the caller's transaction and returns its id. `at` (from the caller's clock) is
 * when it occurred and when it was queued. Pass `id` to make it deterministic (the hub deduplicates by
 * id); it must be unique across orgs, so derive it from something that is (a record id, a connection id).
 */
export async function enqueueHubEvent(tx: Tx, event: HubEvent): Promise<string> {
  return enqueueDelivery(tx, hubDelivery(event));
}

export interface HubEvent {
  type: string;
  orgId: string;
  data: unknown;
  at: Date;
  id?: string;
}

/** The outbox row of a hub event, for enqueueDeliveries. */
export function hubDelivery(event: HubEvent): DeliveryInput {
  const createdAt = event.at.toISOString();
  const id = event.id ?? newId('evt', event.at);
  // Undefined for data JSON leaves out (undefined itself, a function): the payload then has no `data`, as JSON.stringify of the whole writes it.
  const dataJson = JSON.stringify(event.data) as string | undefined;
  const head = JSON.stringify({ id, type: event.type, org_id: event.orgId, occurred_at: createdAt });
  const payload = dataJson === undefined ? head : `${head.slice(0, -1)},"data":${dataJson}}`;
  return { orgId: event.orgId, destination: HUB_DESTINATION, target: null, type: event.type, contentType: 'application/json', payload, id, createdAt, ...(dataJson === undefined ? {} : { dataJson }) };
}

/** What retention removes of the outbox: delivered rows `keepMs` after delivery (RETENTION_OUTBOX_DELIVERED_MS). */
export function outboxRetention({ db, dialect }: DatabaseHandle, keepMs: number): PurgeTarget {
  return { name: 'outbox_delivered', keepMs, purge: (before, limit) => purgeDelivered(db, dialect, before, limit) };
}
