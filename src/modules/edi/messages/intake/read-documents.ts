import { setImmediate } from 'node:timers/promises';
import { pace } from '../../../../platform/core/pacer.js';
import type { Tx } from '../../../../platform/db/schema.js';
import { type DocumentDetail, documentDetailSchema, type DocumentStatus, type DocumentView, type EdiError } from '../messages.schemas.js';
import * as messages from '../messages.repository.js';
import { readPurchaseOrders, takePurchaseOrder, type PurchaseOrderOutcome } from '../order-intake.js';
import type { PoAcknowledgment } from '../outbound-sets.js';
import { readPurchaseOrder } from '../purchase-order.js';
import { toEdiError } from '../x12-errors.js';
import {
  echoText,
  type Findings,
  type FunctionalGroup,
  type GroupVerdict,
  indexFindings,
  type PartialInterchange,
  readSegments,
  type SetVerdict,
  type TransactionSet,
  type X12Issue,
} from '../../x12/index.js';
import { send855s } from './acknowledge.js';
import type { IntakeDeps, Received } from './received.js';
import type { Checked } from './screen.js';
import { PACE_WEIGHT, weightOf } from './slices.js';

// Step 3 of the intake, read documents: each set the 997 accepts is read (850 -> an order), each one recorded.

/**
 * Document rows go in per 100 or per 256 KB of stored detail (~13 KB for an 850 of 50 lines), whichever comes first:
 * rows held longer outlive young-generation collections and stay in the heap until the request ends.
 */
const DOCUMENT_BATCH = 100;
const DOCUMENT_BATCH_BYTES = 256 * 1024;

/** An 855 owed at receipt. */
export interface Owed {
  outcome: PurchaseOrderOutcome;
  ack: PoAcknowledgment;
}


function documentView(type: string, set: Pick<TransactionSet, 'controlNumber'>, status: DocumentStatus, errors: readonly EdiError[], po?: { poNumber: string; orderId?: string }): DocumentView {
  return {
    type: echoText(type),
    control_number: echoText(set.controlNumber),
    status,
    ...(po === undefined || po.poNumber === '' ? {} : { po_number: echoText(po.poNumber) }),
    ...(po?.orderId === undefined ? {} : { order_id: po.orderId }),
    ...(errors.length === 0 ? {} : { errors: [...errors] }),
  };
}

/** One transaction set of the interchange, with its place among them (its document's `seq` is `index + 1`). */
export interface SetEntry {
  group: FunctionalGroup;
  set: TransactionSet;
  index: number;
}

/** The interchange's sets in order. */
export async function setsOf(envelope: PartialInterchange): Promise<SetEntry[]> {
  const entries: SetEntry[] = [];
  for (const group of envelope.groups) {
    for (const set of group.transactionSets) entries.push({ group, set, index: entries.length });
    await pace();
  }
  return entries;
}

/** What each set's document is read against: its verdict, or for an inbound 997 (never acknowledged) its findings. */
export interface Judgement {
  verdicts: Map<TransactionSet, { set: SetVerdict; groupIssues: X12Issue[] }>;
  inbound997: Findings;
}

export async function judgement(checked: Checked, verdicts: readonly GroupVerdict[]): Promise<Judgement> {
  const bySet = new Map<TransactionSet, { set: SetVerdict; groupIssues: X12Issue[] }>();
  for (const g of verdicts) {
    for (const s of g.sets) bySet.set(s.set, { set: s, groupIssues: g.issues });
    await pace();
  }
  // Findings of inbound 997 sets (never acknowledged, so in no verdict), filed under the set they belong to; filing
  // every finding of a large interchange costs a few hundred ms at once, so only when there is an FA group at all.
  const groups = checked.envelope.groups;
  return { verdicts: bySet, inbound997: indexFindings(groups.some((g) => g.functionalId === 'FA') ? groups : [], checked.issues) };
}

/**
 * One document per transaction set of `entries`: accepted 850s go to the orders service, the rest are recorded with
 * their findings; the 855s owed at receipt are written pace by pace, in the same transaction.
 */
export async function readDocuments(tx: Tx, deps: IntakeDeps, received: Received, checked: Checked, judged: Judgement, entries: readonly SetEntry[]): Promise<DocumentView[]> {
  const documents: DocumentView[] = [];
  const owed: Owed[] = [];
  const rows = new DocumentRows(tx);
  const qualifiers = checked.partner.sku_qualifiers.split(',');
  // The slice's accepted POs read first: one catalog read for all their lines.
  const accepted = entries.filter(({ set }) => judged.verdicts.get(set)?.set.accepted === true).map(({ set }) => set);
  const { pos, catalog } = await readPurchaseOrders(tx, deps, { orgId: received.orgId, qualifiers, sets: accepted });
  let paced = 0;
  for (const entry of entries) {
    const { group, set, index } = entry;
    // A yield every pace of the slice, so one large body never starves other requests (slices.ts).
    paced += weightOf(entry);
    if (paced >= PACE_WEIGHT) {
      paced = 0;
      // The pace's 855s before the yield: a slice never ends on all of its 855s at once.
      await send855s(tx, deps, received, checked, owed.splice(0));
      await setImmediate();
    }
    const verdict = judged.verdicts.get(set);
    let view: DocumentView;
    let detail: DocumentDetail;
    if (verdict === undefined) {
      const errors = judged.inbound997.set(set).map(toEdiError);
      detail = { errors };
      view = documentView(set.id, set, errors.length === 0 ? 'received' : 'rejected', errors);
    } else if (!verdict.set.accepted) {
      detail = { errors: [...verdict.groupIssues, ...verdict.set.issues].map(toEdiError) };
      // Read without caching the segments on the set: a large body holds only the findings of its rejected sets.
      const poNumber = set.id === '850' ? readPurchaseOrder(readSegments(set)).poNumber : '';
      view = documentView(set.id, set, 'rejected', detail.errors, { poNumber });
    } else {
      const po = pos.get(set);
      if (po === undefined) throw new Error(`set ${set.controlNumber} was accepted but not read`);
      const outcome = await takePurchaseOrder(tx, deps, { orgId: received.orgId, qualifiers, po, catalog, gs08: group.version, test: checked.envelope.usage === 'T', partner: checked.partner });
      if (outcome.ack !== undefined) owed.push({ outcome, ack: outcome.ack });
      // Accepted with errors (AK5 E, the partner's lenient level): the findings the 997 notes stay with the document.
      detail = verdict.set.withErrors ? { ...outcome.detail, errors: [...verdict.set.issues.map(toEdiError), ...outcome.detail.errors] } : outcome.detail;
      view = documentView(set.id, set, outcome.status, detail.errors, outcome);
    }
    view = withNotes(view, checked, set);
    documents.push(view);
    await rows.add({
      message_id: received.messageId,
      seq: index + 1,
      org_id: received.orgId,
      type: set.id,
      group_control: group.controlNumber,
      control_number: set.controlNumber,
      status: view.status,
      po_number: view.po_number ?? null,
      order_id: view.order_id ?? null,
      detail: JSON.stringify(detail),
    });
  }
  await rows.flush();
  await send855s(tx, deps, received, checked, owed);
  return documents;
}

/** The documents a slice taken earlier recorded (by a process that stopped before answering), as the answer shows them. */
export function documentsTaken(rows: readonly messages.DocumentRow[], checked: Checked, entries: readonly SetEntry[]): DocumentView[] {
  return rows.map((row) => {
    const entry = entries[row.seq - 1];
    const detail = documentDetailSchema.parse(JSON.parse(row.detail));
    const po = { poNumber: row.po_number ?? '', ...(row.order_id === null ? {} : { orderId: row.order_id }) };
    const view = documentView(row.type, { controlNumber: row.control_number }, row.status, detail.errors, po);
    return entry === undefined ? view : withNotes(view, checked, entry.set);
  });
}

function withNotes(view: DocumentView, checked: Checked, set: TransactionSet): DocumentView {
  const notes = checked.notes.get(set.position);
  return notes === undefined ? view : { ...view, notes };
}

/** Document rows written a batch at a time: a large body never holds every document's stored detail at once. */
class DocumentRows {
  private rows: messages.DocumentRow[] = [];
  private bytes = 0;

  constructor(private readonly tx: Tx) {}

  async add(row: messages.DocumentRow): Promise<void> {
    this.rows.push(row);
    this.bytes += row.detail.length;
    if (this.rows.length === DOCUMENT_BATCH || this.bytes > DOCUMENT_BATCH_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    await messages.insertDocuments(this.tx, this.rows);
    this.rows = [];
    this.bytes = 0;
  }
}
