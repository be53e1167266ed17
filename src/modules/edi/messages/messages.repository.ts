import { type SelectQueryBuilder, sql } from 'kysely';
import type { SinceWindow } from '../../../platform/core/pagination.js';
import { PreparedList, PreparedQuery } from '../../../platform/db/prepared-query.js';
import { inSinceOrder } from '../../../platform/db/since-order.js';
import type { Database, Db, Executor, Tx } from '../../../platform/db/schema.js';
import type { EdiDirection } from './messages.schemas.js';
import type { EdiDocumentsTable, EdiInterchangesTable, EdiMessagesTable } from './messages.tables.js';

export type MessageRow = EdiMessagesTable;
export type DocumentRow = EdiDocumentsTable;
export type InterchangeRow = EdiInterchangesTable;
export type MessageSummaryRow = Omit<MessageRow, 'raw' | 'result' | 'errors' | 'sets_total' | 'lease_owner'>;
/** A message's row without its bytes, which only include=raw reads (readRaw). */
export type StoredMessage = Omit<MessageRow, 'raw'>;

/** Rows per multi-row insert: well under SQLite's 32,766 bound parameters. */
const DOCUMENT_CHUNK = 1000;

const SUMMARY_COLUMNS = [
  'id', 'org_id', 'direction', 'partner_id', 'type', 'control_number', 'status', 'size', 'sha256', 'http_status',
  'related_id', 'parent_id', 'order_id', 'created_at', 'updated_at',
] as const;
/** Every column but `raw`: a reply kept on its row can be megabytes (a 997 to 40,000 sets), which a by-id read would fetch for nothing. */
const MESSAGE_COLUMNS = [...SUMMARY_COLUMNS, 'result', 'errors', 'sets_total', 'lease_owner'] as const;

/** Bytes per chunk row: the database copies a bound value and then its row, so a body is never copied whole. */
const RAW_CHUNK_BYTES = 64 * 1024;

/** A received body's row with its bytes in chunk rows (`row.raw` stays empty), in one transaction: never a row with part of its bytes. */
export async function insertReceived(db: Db, row: Omit<MessageRow, 'raw'>, raw: Buffer): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.insertInto('edi_messages').values({ ...row, raw: Buffer.alloc(0) }).execute();
    await insertChunks(tx, row.org_id, row.id, raw);
  });
}

/** Whether a message's bytes go to chunk rows rather than onto its row: any that fill more than one chunk. */
export function chunked(raw: Buffer): boolean {
  return raw.length > RAW_CHUNK_BYTES;
}

/** How many chunk rows `raw` fills. */
export function chunkCount(raw: Buffer): number {
  return Math.ceil(raw.length / RAW_CHUNK_BYTES);
}

/** Chunk rows that fit in `bytes` (at least one): a piece of a body stored in several transactions. */
export function chunksIn(bytes: number): number {
  return Math.max(1, Math.floor(bytes / RAW_CHUNK_BYTES));
}

/**
 * `raw` as the chunk rows of message `messageId`, those numbered `from` up to `to` (all by default), written in the
 * caller's transaction after the message row.
 */
export async function insertChunks(tx: Tx, orgId: string, messageId: string, raw: Buffer, from = 0, to = Number.POSITIVE_INFINITY): Promise<void> {
  for (let seq = from; seq < to && seq * RAW_CHUNK_BYTES < raw.length; seq++) {
    const data = raw.subarray(seq * RAW_CHUNK_BYTES, (seq + 1) * RAW_CHUNK_BYTES);
    await tx.insertInto('edi_message_chunks').values({ message_id: messageId, seq, org_id: orgId, data }).execute();
  }
}

/** How many chunk rows of a message are stored: a body left arriving has its first ones, in `seq` order. */
export async function countChunks(db: Executor, orgId: string, messageId: string): Promise<number> {
  const row = await db
    .selectFrom('edi_message_chunks')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('org_id', '=', orgId)
    .where('message_id', '=', messageId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Takes over a body a stopped process left arriving (stored in part) when the same bytes are received again: the same
 * org, SHA-256 and size, no parent body, held by nobody or by an owner no longer among `live`. The row when taken.
 * Never `owner`'s own lease, even when its heartbeat looks stale (the database was away): a call of its may be taking
 * the message, or its release be on the way (intake/received.ts, LeaseReleases).
 */
export async function takeArriving(
  db: Executor,
  orgId: string,
  bytes: { sha256: string; size: number },
  owner: string,
  live: SelectQueryBuilder<Database, 'gateway_instances', { id: string }>,
  now: string,
): Promise<StoredMessage | undefined> {
  const left = await db
    .selectFrom('edi_messages')
    .select('id')
    .where('org_id', '=', orgId)
    .where('status', '=', 'arriving')
    .where('sha256', '=', bytes.sha256)
    .where('size', '=', bytes.size)
    .where('parent_id', 'is', null)
    .orderBy('id')
    .execute();
  for (const { id } of left) {
    const took = await db
      .updateTable('edi_messages')
      .set({ lease_owner: owner, updated_at: now })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('status', '=', 'arriving')
      .where((eb) => eb.or([eb('lease_owner', 'is', null), eb.and([eb('lease_owner', '!=', owner), eb('lease_owner', 'not in', live)])]))
      .executeTakeFirst();
    if (Number(took.numUpdatedRows) > 0) return findMessage(db, orgId, id);
  }
  return undefined;
}

/** A message's bytes: its chunks when it has any, else the bytes kept on its row. */
export async function readRaw(db: Executor, orgId: string, messageId: string): Promise<Buffer> {
  const chunks = await db
    .selectFrom('edi_message_chunks')
    .select('data')
    .where('org_id', '=', orgId)
    .where('message_id', '=', messageId)
    .orderBy('seq')
    .execute();
  if (chunks.length > 0) return Buffer.concat(chunks.map((c) => c.data));
  const row = await db.selectFrom('edi_messages').select('raw').where('org_id', '=', orgId).where('id', '=', messageId).executeTakeFirst();
  return row?.raw ?? Buffer.alloc(0);
}

/** Rows per multi-row insert of messages: 17 columns each stays well under SQLite's 32,766 bound parameters. */
const MESSAGE_CHUNK = 1000;

// A slice of an interchange writes a few rows of each at a time: compiled once per row count (PreparedList).
const insertMessageRows = new PreparedList((db, _v: object, rows: MessageRow[]) => db.insertInto('edi_messages').values(rows));
const insertDocumentRows = new PreparedList((db, _v: object, rows: DocumentRow[]) => db.insertInto('edi_documents').values(rows));

export async function insertMessages(db: Executor, rows: readonly MessageRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += MESSAGE_CHUNK) {
    await insertMessageRows.result(db, {}, rows.slice(i, i + MESSAGE_CHUNK));
  }
}

export async function updateMessage(
  db: Executor,
  orgId: string,
  id: string,
  patch: Partial<Omit<MessageRow, 'id' | 'org_id' | 'direction' | 'raw' | 'size' | 'sha256' | 'created_at'>>,
): Promise<void> {
  await db.updateTable('edi_messages').set(patch).where('org_id', '=', orgId).where('id', '=', id).execute();
}

/**
 * Takes the lease on an interchange still being taken (no answer recorded) when nobody holds it, or its holder is no
 * longer among `live` (the ids of the live instances): true when `owner` now holds it. Never `owner`'s own lease (see
 * takeArriving).
 */
export async function takeLease(db: Executor, orgId: string, id: string, owner: string, live: SelectQueryBuilder<Database, 'gateway_instances', { id: string }>, now: string): Promise<boolean> {
  const result = await db
    .updateTable('edi_messages')
    .set({ lease_owner: owner, updated_at: now })
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where('result', 'is', null)
    .where((eb) => eb.or([eb('lease_owner', 'is', null), eb.and([eb('lease_owner', '!=', owner), eb('lease_owner', 'not in', live)])]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Gives up the lease `owner` holds on an interchange it stopped taking without an answer (a slice failed): a resend
 * may then finish it at once instead of waiting for `owner` to stop heartbeating. False when it was not held by `owner`.
 */
export async function releaseLease(db: Executor, orgId: string, id: string, owner: string): Promise<boolean> {
  const result = await db
    .updateTable('edi_messages')
    .set({ lease_owner: null })
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where('result', 'is', null)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Marks a slice taken under the lease `owner` holds: false when another process took the interchange over meanwhile. */
const touchHeldRow = new PreparedQuery((db, v: { orgId: string; id: string; owner: string; now: string }) =>
  db.updateTable('edi_messages').set({ updated_at: v.now }).where('org_id', '=', v.orgId).where('id', '=', v.id).where('lease_owner', '=', v.owner),
);

export async function touchHeld(db: Executor, orgId: string, id: string, owner: string, now: string): Promise<boolean> {
  return Number((await touchHeldRow.result(db, { orgId, id, owner, now })).numAffectedRows ?? 0) > 0;
}

/** How many documents of a message were recorded: the sets of an interchange taken so far. */
export async function countDocuments(db: Executor, orgId: string, messageId: string): Promise<number> {
  const row = await db
    .selectFrom('edi_documents')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('org_id', '=', orgId)
    .where('message_id', '=', messageId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findMessage(db: Executor, orgId: string, id: string): Promise<StoredMessage | undefined> {
  return db.selectFrom('edi_messages').select(MESSAGE_COLUMNS).where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}

export interface ListOptions {
  direction?: EdiDirection;
  type?: string;
  /** Partner id or name. */
  partner?: string;
  /** Rows created before this (created_at, id), newest first. */
  before?: { createdAt: string; id: string };
  /** Or rows since an instant, oldest first (updated_since / created_since). */
  since?: SinceWindow;
  limit: number;
}

export async function listMessages(db: Executor, orgId: string, o: ListOptions): Promise<MessageSummaryRow[]> {
  let query = db.selectFrom('edi_messages as m').select(SUMMARY_COLUMNS.map((c) => `m.${c}` as const)).where('m.org_id', '=', orgId);
  if (o.direction !== undefined) query = query.where('m.direction', '=', o.direction);
  if (o.type !== undefined) {
    // `type` lists every kind of set the message carries ("850,997"): match one entry of the list.
    query = query.where(sql<string>`',' || m.type || ','`, 'like', `%,${o.type},%`);
  }
  if (o.partner !== undefined) {
    const ref = o.partner;
    query = query.where('m.partner_id', 'in', (eb) =>
      eb.selectFrom('edi_partners as p').select('p.id').where('p.org_id', '=', orgId).where((w) => w.or([w('p.id', '=', ref), w('p.name', '=', ref)])),
    );
  }
  if (o.since !== undefined) return inSinceOrder(query, o.since, 'id', 'm').limit(o.limit).execute();
  if (o.before !== undefined) {
    const b = o.before;
    // A row value: seeks the index to the cursor (see orders.repository listOrders).
    query = query.where((eb) => eb(eb.refTuple('m.created_at', 'm.id'), '<', eb.tuple(b.createdAt, b.id)));
  }
  return query.orderBy('m.created_at', 'desc').orderBy('m.id', 'desc').limit(o.limit).execute();
}

export async function insertDocuments(db: Executor, rows: readonly DocumentRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += DOCUMENT_CHUNK) {
    await insertDocumentRows.result(db, {}, rows.slice(i, i + DOCUMENT_CHUNK));
  }
}

export async function findDocuments(db: Executor, orgId: string, messageId: string): Promise<DocumentRow[]> {
  return db.selectFrom('edi_documents').selectAll().where('org_id', '=', orgId).where('message_id', '=', messageId).orderBy('seq').execute();
}

/** The 850 an order came from. */
export async function findOrderSource(db: Executor, orgId: string, orderId: string): Promise<(DocumentRow & { partner_id: string | null }) | undefined> {
  return db
    .selectFrom('edi_documents as d')
    .innerJoin('edi_messages as m', 'm.id', 'd.message_id')
    .selectAll('d')
    .select('m.partner_id')
    .where('d.org_id', '=', orgId)
    .where('m.org_id', '=', orgId)
    .where('d.order_id', '=', orderId)
    .where('m.direction', '=', 'inbound')
    .where('d.type', '=', '850')
    .executeTakeFirst();
}

/** Records that this interchange got an answer; false when the key is taken (a resend, or one racing this one). */
export async function claimInterchange(tx: Tx, row: InterchangeRow): Promise<boolean> {
  const result = await tx
    .insertInto('edi_interchanges')
    .values(row)
    .onConflict((oc) => oc.columns(['org_id', 'partner_id', 'control_number']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function findInterchange(db: Executor, orgId: string, partnerId: string, controlNumber: string): Promise<InterchangeRow | undefined> {
  return db
    .selectFrom('edi_interchanges')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('partner_id', '=', partnerId)
    .where('control_number', '=', controlNumber)
    .executeTakeFirst();
}
