import { setImmediate } from 'node:timers/promises';
import type { Tx } from '../../../../platform/db/schema.js';
import type { DocumentDetail, DocumentStatus, DocumentView, EdiError } from '../messages.schemas.js';
import * as messages from '../messages.repository.js';
import { takePurchaseOrder, type PurchaseOrderOutcome } from '../order-intake.js';
import type { PoAcknowledgment } from '../outbound-sets.js';
import { readPurchaseOrder } from '../purchase-order.js';
import { toEdiError } from '../x12-errors.js';
import { echoText, type GroupVerdict, indexFindings, readSegments, type SetVerdict, type TransactionSet, type X12Issue } from '../../x12/index.js';
import type { IntakeDeps, Received } from './received.js';
import type { Checked } from './screen.js';

// Step 3 of the intake, read documents: each set the 997 accepts is read (850 -> an order), each one recorded.

/** Documents written between two yields to the event loop, so one large body never starves other requests. */
const PACE = 500;

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

export interface ReadDocuments {
  documents: DocumentView[];
  owed: Owed[];
}

function documentView(type: string, set: TransactionSet, status: DocumentStatus, errors: readonly EdiError[], po?: { poNumber: string; orderId?: string }): DocumentView {
  return {
    type: echoText(type),
    control_number: echoText(set.controlNumber),
    status,
    ...(po === undefined || po.poNumber === '' ? {} : { po_number: echoText(po.poNumber) }),
    ...(po?.orderId === undefined ? {} : { order_id: po.orderId }),
    ...(errors.length === 0 ? {} : { errors: [...errors] }),
  };
}

/** One document per transaction set: accepted 850s go to the orders service, the rest are recorded with their findings. */
export async function readDocuments(tx: Tx, deps: IntakeDeps, received: Received, checked: Checked, verdicts: readonly GroupVerdict[]): Promise<ReadDocuments> {
  const setVerdicts = new Map<TransactionSet, { set: SetVerdict; groupIssues: X12Issue[] }>();
  for (const g of verdicts) for (const s of g.sets) setVerdicts.set(s.set, { set: s, groupIssues: g.issues });
  const documents: DocumentView[] = [];
  const owed: Owed[] = [];
  const rows = new DocumentRows(tx);
  const qualifiers = checked.partner.sku_qualifiers.split(',');
  // Findings of inbound 997 sets (never acknowledged, so in no verdict), filed under the set they belong to.
  const inbound997 = indexFindings(checked.envelope.groups, checked.issues);
  for (const group of checked.envelope.groups) {
    for (const set of group.transactionSets) {
      if (documents.length % PACE === PACE - 1) await setImmediate();
      const verdict = setVerdicts.get(set);
      let view: DocumentView;
      let detail: DocumentDetail;
      if (verdict === undefined) {
        const errors = inbound997.set(set).map(toEdiError);
        detail = { errors };
        view = documentView(set.id, set, errors.length === 0 ? 'received' : 'rejected', errors);
      } else if (!verdict.set.accepted) {
        detail = { errors: [...verdict.groupIssues, ...verdict.set.issues].map(toEdiError) };
        // Read without caching the segments on the set: a large body holds only the findings of its rejected sets.
        const poNumber = set.id === '850' ? readPurchaseOrder(readSegments(set)).poNumber : '';
        view = documentView(set.id, set, 'rejected', detail.errors, { poNumber });
      } else {
        const outcome = await takePurchaseOrder(tx, deps, { orgId: received.orgId, qualifiers, set, gs08: group.version, test: checked.envelope.usage === 'T', partner: checked.partner });
        if (outcome.ack !== undefined) owed.push({ outcome, ack: outcome.ack });
        // Accepted with errors (AK5 E, the partner's lenient level): the findings the 997 notes stay with the document.
        detail = verdict.set.withErrors ? { ...outcome.detail, errors: [...verdict.set.issues.map(toEdiError), ...outcome.detail.errors] } : outcome.detail;
        view = documentView(set.id, set, outcome.status, detail.errors, outcome);
      }
      const notes = checked.notes.get(set.position);
      if (notes !== undefined) view = { ...view, notes };
      documents.push(view);
      await rows.add({
        message_id: received.messageId,
        seq: documents.length,
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
  }
  await rows.flush();
  return { documents, owed };
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
