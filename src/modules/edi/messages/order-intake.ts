import type { Clock } from '../../../platform/core/clock.js';
import type { Tx } from '../../../platform/db/schema.js';
import type { Catalog, OrdersService } from '../../orders/orders.service.js';
import type { DocumentDetail, DocumentStatus, EdiError, StoredLine } from './messages.schemas.js';
import { judgePoLines, skusNamed } from './order-lines.js';
import { type AckType, ccyymmdd, missingSegments, type OutboundLine, type PoAcknowledgment, purchaseOrderAck, scheduleDate } from './outbound-sets.js';
import type { DocumentProfile } from '../partners/partners.schemas.js';
import { documentProfileOf, type TradingPartner } from '../partners/partners.service.js';
import { versionOf } from './outbound.js';
import { type PurchaseOrder, readPurchaseOrder } from './purchase-order.js';
import { readSegments, type TransactionSet } from '../x12/index.js';

/** Orders keep at most this much of the 850's notes. */
const MAX_NOTES = 4000;

export interface OrderIntakeDeps {
  orders: OrdersService;
  /** BAK09 of an 855 owed at receipt. */
  clock: Clock;
}

export interface PurchaseOrderOutcome {
  status: DocumentStatus;
  poNumber: string;
  orderId?: string;
  detail: DocumentDetail;
  /** An 855 owed right away: the PO or some of its lines were refused. */
  ack?: PoAcknowledgment;
}

/** What an 855 shows of a stored line: ours where we took it, the partner's values where we did not. */
export function ackLine(line: StoredLine): OutboundLine {
  return {
    lineId: line.line_id,
    qualifier: line.qualifier ?? '',
    productId: line.sku ?? line.product_id ?? '',
    quantity: line.quantity,
    unit: line.unit,
    unitPrice: line.unit_price,
    ...(line.product_ids === undefined ? {} : { productIds: line.product_ids }),
    ...(line.price_basis === undefined ? {} : { priceBasis: line.price_basis }),
  };
}

/** What an 855 carries besides its lines: BAK09 (today), REF*IA (the profile's vendor number) and the 850's N1 loops. */
export function ackHeader(detail: DocumentDetail, at: Date, profile: DocumentProfile | undefined): Pick<PoAcknowledgment, 'date' | 'vendorNumber' | 'parties'> {
  // Details stored before [15/20] kept the ship-to loop alone.
  const parties = detail.parties ?? (detail.ship_to === undefined ? [] : [{ code: 'ST', party: detail.ship_to }]);
  return { date: ccyymmdd(at), parties, ...(profile?.vendor_number === undefined ? {} : { vendorNumber: profile.vendor_number }) };
}

/** ACK05 of an accepted line: the 850's requested ship date (the line's, else the header's) against the profile's lead days. */
export function lineSchedule(line: StoredLine, detail: DocumentDetail, at: Date, profile: DocumentProfile | undefined): { shipDate?: string } {
  const date = scheduleDate(line.ship_date ?? detail.ship_date, at, profile?.lead_days);
  return date === undefined ? {} : { shipDate: date };
}

function acknowledgment(type: AckType, po: { poNumber: string; detail: DocumentDetail; at: Date; profile: DocumentProfile | undefined; orderId?: string }): PoAcknowledgment {
  const { detail, at, profile } = po;
  const lines = (detail.lines ?? []).map((l) => {
    const accepted = type !== 'RD' && l.accepted;
    return { line: ackLine(l), accepted, ...(accepted ? lineSchedule(l, detail, at, profile) : {}) };
  });
  return { type, poNumber: po.poNumber, poDate: detail.po_date ?? '', ...ackHeader(detail, at, profile), lines, ...(po.orderId === undefined ? {} : { orderId: po.orderId }) };
}

/** An 855 owed at receipt that lacks a segment the partner requires is not sent; the 850's document says why. */
function holdThinAck(outcome: PurchaseOrderOutcome, partner: TradingPartner | undefined, profile: DocumentProfile | undefined): PurchaseOrderOutcome {
  const required = profile?.require?.['855'] ?? [];
  // Nothing required, nothing to check: the 855 of a 90,000-line PO is not built twice.
  if (outcome.ack === undefined || partner === undefined || required.length === 0) return outcome;
  const missing = missingSegments(purchaseOrderAck(outcome.ack), required);
  if (missing.length === 0) return outcome;
  const { ack: _held, ...rest } = outcome;
  const message = `no 855 was sent: partner ${partner.name} requires ${missing.join(', ')} in its 855 and this PO gives no data for ${missing.length === 1 ? 'it' : 'them'}`;
  return { ...rest, detail: { ...outcome.detail, errors: [...outcome.detail.errors, { code: 'ack_not_sent', message }] } };
}

/** Why an 850 the 997 accepted made no order: each a value, worded once (findingOf) for the document and the 855. */
type PoRefusal =
  | { kind: 'unsupported_purpose'; purpose: string }
  | { kind: 'no_ship_to' }
  | { kind: 'no_lines' }
  | { kind: 'duplicate_po'; poNumber: string }
  | { kind: 'order_refused'; message: string };

function findingOf(refusal: PoRefusal): EdiError {
  switch (refusal.kind) {
    case 'unsupported_purpose':
      return { code: refusal.kind, message: `BEG01 purpose '${refusal.purpose}' is not supported: only original orders (00) are taken` };
    case 'no_ship_to':
      return { code: refusal.kind, message: 'no ship-to: the 850 has no N1*ST loop' };
    case 'no_lines':
      return { code: refusal.kind, message: 'no line of the 850 could be taken' };
    case 'duplicate_po':
      return { code: refusal.kind, message: `PO ${refusal.poNumber} already exists` };
    case 'order_refused':
      return { code: refusal.kind, message: refusal.message };
  }
}

/** Whether the header allows an order at all, and where it ships to. */
function orderable(purpose: string, shipTo: string | undefined, acceptedLines: number): { shipTo: string } | { refusal: PoRefusal } {
  if (purpose !== '00') return { refusal: { kind: 'unsupported_purpose', purpose } };
  if (shipTo === undefined) return { refusal: { kind: 'no_ship_to' } };
  if (acceptedLines === 0) return { refusal: { kind: 'no_lines' } };
  return { shipTo };
}

/** The 850s of some sets (a slice's), read, and the catalog rows all their lines name, in one read. */
export async function readPurchaseOrders(
  tx: Tx,
  deps: OrderIntakeDeps,
  input: { orgId: string; qualifiers: readonly string[]; sets: readonly TransactionSet[] },
): Promise<{ pos: Map<TransactionSet, PurchaseOrder>; catalog: Catalog }> {
  const pos = new Map<TransactionSet, PurchaseOrder>();
  const skus: string[] = [];
  for (const set of input.sets) {
    // Read without caching the segments on the set: a large interchange never holds every order's segments at once.
    const po = readPurchaseOrder(readSegments(set));
    pos.set(set, po);
    for (const sku of skusNamed(po.lines, input.qualifiers)) skus.push(sku);
  }
  return { pos, catalog: skus.length === 0 ? new Map() : await deps.orders.catalogOf(tx, input.orgId, skus) };
}

/** One 850 the 997 accepts (read by readPurchaseOrders) -> an order; business refusals are outcomes the 855 reports, never X12 errors. */
export async function takePurchaseOrder(
  tx: Tx,
  deps: OrderIntakeDeps,
  input: {
    orgId: string;
    qualifiers: readonly string[];
    po: PurchaseOrder;
    /** The products the PO's lines name (readPurchaseOrders). */
    catalog: Catalog;
    gs08: string;
    test: boolean;
    /** The sender: its profile's vendor number, lead days and 855 requirements shape an 855 owed at receipt. */
    partner?: TradingPartner;
  },
): Promise<PurchaseOrderOutcome> {
  const profile = input.partner === undefined ? undefined : documentProfileOf(input.partner);
  return holdThinAck(await decide(tx, deps, input, profile), input.partner, profile);
}

async function decide(
  tx: Tx,
  deps: OrderIntakeDeps,
  input: { orgId: string; qualifiers: readonly string[]; po: PurchaseOrder; catalog: Catalog; gs08: string; test: boolean },
  profile: DocumentProfile | undefined,
): Promise<PurchaseOrderOutcome> {
  const { po } = input;
  const lines = judgePoLines(deps.orders, input.catalog, { lines: po.lines, qualifiers: input.qualifiers });
  const detail: DocumentDetail = {
    errors: lines.errors,
    version: versionOf(input.gs08),
    po_date: po.poDate,
    lines: lines.stored,
    ...(po.shipToParty === undefined ? {} : { ship_to: po.shipToParty }),
    ...(po.parties.length === 0 ? {} : { parties: po.parties }),
    ...(po.shipDate === undefined ? {} : { ship_date: po.shipDate }),
  };
  const at = deps.clock.now();
  const header = orderable(po.purpose, po.shipTo, lines.priced.length);
  if (input.test) {
    const note = { code: 'test_interchange', message: 'ISA15 is T (test): checked and acknowledged; no order was made' };
    detail.errors = [...('refusal' in header ? [findingOf(header.refusal)] : []), ...lines.errors, note];
    return { status: 'test', poNumber: po.poNumber, detail };
  }
  const refuse = (refusal: PoRefusal): PurchaseOrderOutcome => {
    detail.errors = [findingOf(refusal), ...lines.errors];
    return { status: 'rejected', poNumber: po.poNumber, detail, ack: acknowledgment('RD', { poNumber: po.poNumber, detail, at, profile }) };
  };
  if ('refusal' in header) return refuse(header.refusal);
  const made = await deps.orders.createOrRefuse(tx, input.orgId, 'edi', {
    po_number: po.poNumber,
    ship_to: header.shipTo,
    notes: po.notes === undefined ? null : po.notes.slice(0, MAX_NOTES),
    priced: lines.priced,
  });
  if ('refused' in made) {
    return refuse(made.refused.reason === 'po_number_taken' ? { kind: 'duplicate_po', poNumber: po.poNumber } : { kind: 'order_refused', message: made.refused.message });
  }
  const { order } = made;
  if (lines.errors.length === 0) return { status: 'accepted', poNumber: po.poNumber, orderId: order.id, detail };
  return { status: 'partial', poNumber: po.poNumber, orderId: order.id, detail, ack: acknowledgment('AC', { poNumber: po.poNumber, detail, at, profile, orderId: order.id }) };
}
