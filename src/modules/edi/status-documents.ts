import type { Clock } from '../../platform/clock.js';
import { toUnits } from '../../platform/money.js';
import type { OrderStatus } from '../orders/order-status.js';
import type { OrderData } from '../orders/orders.schemas.js';
import type { OrderStatusListener } from '../orders/orders.service.js';
import { documentDetailSchema, type StoredLine } from './edi.schemas.js';
import * as messages from './messages.repository.js';
import { ackLine } from './order-intake.js';
import { invoice, type OutboundLine, purchaseOrderAck, shipNotice, type Body } from './outbound-sets.js';
import { type OutboundType, recordOutbound, wrapSet } from './outbound.js';
import * as partners from './partners.repository.js';

/** The document an EDI order's partner gets when the order reaches each status. */
const DOCUMENT_FOR: Partial<Record<OrderStatus, OutboundType>> = { confirmed: '855', shipped: '856', delivered: '810' };

const two = (n: number): string => String(n).padStart(2, '0');
const ccyymmdd = (d: Date): string => `${d.getUTCFullYear()}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}`;
const hhmm = (d: Date): string => `${two(d.getUTCHours())}${two(d.getUTCMinutes())}`;

/** The order's lines as the partner ordered them: their PO101, qualifier and unit, our SKU, quantity and price. */
function orderedLines(order: OrderData, stored: readonly StoredLine[]): OutboundLine[] {
  // Order lines are the 850's accepted lines, in the same order.
  const accepted = stored.filter((l) => l.accepted);
  return [...order.lines]
    .sort((a, b) => a.line_no - b.line_no)
    .map((line, i) => {
      const from = accepted[i];
      return {
        lineId: from?.line_id ?? String(line.line_no),
        qualifier: from?.qualifier ?? 'VP',
        productId: line.sku,
        quantity: String(line.quantity),
        unit: from?.unit ?? 'EA',
        unitPrice: String(line.unit_price),
      };
    });
}

function documentBody(type: OutboundType, order: OrderData, stored: readonly StoredLine[], poDate: string, at: Date, controlNumber: number): Body {
  const lines = orderedLines(order, stored);
  if (type === '855') {
    const refused = stored.filter((l) => !l.accepted).map((l) => ({ line: ackLine(l), accepted: false }));
    return purchaseOrderAck({
      type: refused.length === 0 ? 'AD' : 'AC',
      poNumber: order.po_number,
      poDate,
      orderId: order.id,
      lines: [...lines.map((line) => ({ line, accepted: true })), ...refused],
    });
  }
  if (type === '856') {
    return shipNotice({ shipmentId: order.id, poNumber: order.po_number, poDate, orderId: order.id, date: ccyymmdd(at), time: hhmm(at), lines });
  }
  // Line totals are whole cents, so the subtotal in units divides by 100 exactly. A subtotal that does not convert
  // is a bug to surface (the change rolls back), never an invoice for 0.
  const units = toUnits(order.totals.subtotal);
  if (units === undefined) throw new Error(`order ${order.id}: subtotal ${order.totals.subtotal} is not in 1/10000 units`);
  const totalCents = BigInt(units) / 100n;
  return invoice({ invoiceNumber: `INV${String(controlNumber).padStart(9, '0')}`, date: ccyymmdd(at), poNumber: order.po_number, poDate, lines, totalCents });
}

/** Runs in each status change's transaction, so an EDI order's 855/856/810 commits (or not) with the change. */
export function statusDocuments(clock: Clock): OrderStatusListener {
  return async (tx, { orgId, order, to }) => {
    const type = DOCUMENT_FOR[to];
    if (order.source !== 'edi' || type === undefined) return;
    const source = await messages.findOrderSource(tx, orgId, order.id);
    if (source === undefined || source.partner_id === null) return;
    const partner = await partners.findPartnerById(tx, orgId, source.partner_id);
    const profile = await partners.findProfile(tx, orgId);
    if (partner === undefined || profile === undefined) return;
    const detail = documentDetailSchema.parse(JSON.parse(source.detail));
    const at = clock.now();
    const controlNumber = await partners.reserveControlNumbers(tx, orgId, 1);
    const body = documentBody(type, order, detail.lines ?? [], detail.po_date ?? '', at, controlNumber);
    const x12 = wrapSet(type, body, { profile, partner, version: detail.version ?? '004010', controlNumber, date: at });
    await recordOutbound(tx, { orgId, partner, type, x12, controlNumber, relatedId: source.message_id, orderId: order.id, poNumber: order.po_number, deliver: true, at });
  };
}
