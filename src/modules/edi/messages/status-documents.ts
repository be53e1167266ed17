import type { Clock } from '../../../platform/core/clock.js';
import { unprocessable } from '../../../platform/core/errors.js';
import type { OrderStatus } from '../../orders/order-status.js';
import type { OrderData, ShipmentInput } from '../../orders/orders.schemas.js';
import type { OrderStatusListener, OrderUnits } from '../../orders/orders.service.js';
import { type DocumentProfile, documentProfileSchema, type Requirable856 } from '../partners/partners.schemas.js';
import { type DocumentDetail, documentDetailSchema, type StoredLine } from './messages.schemas.js';
import * as messages from './messages.repository.js';
import { ackLine } from './order-intake.js';
import { invoice, type OutboundLine, purchaseOrderAck, shipNotice, type Body, type ShipmentData } from './outbound-sets.js';
import { type OutboundType, recordOutbound, wrapSet } from './outbound.js';
import type { EdiPartnersService } from '../partners/partners.service.js';
import * as shipments from './shipments.repository.js';

/** The document an EDI order's partner gets when the order reaches each status. */
const DOCUMENT_FOR: Partial<Record<OrderStatus, OutboundType>> = { confirmed: '855', shipped: '856', delivered: '810' };

/** TD101 when the partner names none: corrugated cartons. */
const DEFAULT_PACKAGING = 'CTN25';

const two = (n: number): string => String(n).padStart(2, '0');
const ccyymmdd = (d: Date): string => `${d.getUTCFullYear()}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}`;
const hhmm = (d: Date): string => `${two(d.getUTCHours())}${two(d.getUTCMinutes())}`;

/** Integer 1/10000 units as an X12 decimal (89.99, 25.0125, 10): string arithmetic on the integer, never a float. */
export function unitsToDecimal(units: bigint): string {
  const sign = units < 0n ? '-' : '';
  const abs = units < 0n ? -units : units;
  const whole = (abs / 10_000n).toString();
  const fraction = (abs % 10_000n).toString().padStart(4, '0').replace(/0+$/, '');
  return `${sign}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** The order's lines as the partner ordered them: their PO101, product ids, unit and PO105, our quantity and price. */
function orderedLines(order: OrderData, units: OrderUnits, stored: readonly StoredLine[]): Map<number, OutboundLine> {
  // Order lines are the 850's accepted lines, in the same order.
  const accepted = stored.filter((l) => l.accepted);
  const lines = new Map<number, OutboundLine>();
  [...order.lines]
    .sort((a, b) => a.line_no - b.line_no)
    .forEach((line, i) => {
      const from = accepted[i];
      const price = units.lines.get(line.line_no);
      if (price === undefined) throw new Error(`order ${order.id}: line ${line.line_no} has no stored price`);
      lines.set(line.line_no, {
        lineId: from?.line_id ?? String(line.line_no),
        qualifier: from?.qualifier ?? 'VP',
        productId: line.sku,
        quantity: String(line.quantity),
        unit: from?.unit ?? 'EA',
        unitPrice: unitsToDecimal(price.unitPrice),
        ...(from?.product_ids === undefined ? {} : { productIds: from.product_ids }),
        ...(from?.price_basis === undefined ? {} : { priceBasis: from.price_basis }),
      });
    });
  return lines;
}

/** What the partner's guide requires of an 856 that this shipment (and our profile) cannot give. */
function missingFor856(profile: DocumentProfile, shipment: ShipmentInput | undefined): { segment: Requirable856; needs: string }[] {
  const has: Record<Requirable856, [boolean, string]> = {
    'N1-SF': [profile.ship_from !== undefined, 'a ship-from in the partner profile (operator: partners profile --ship-from)'],
    TD1: [shipment?.weight !== undefined, 'shipment.weight'],
    TD5: [shipment !== undefined, 'shipment.carrier'],
    'REF-BM': [shipment?.bill_of_lading !== undefined, 'shipment.bill_of_lading'],
    'REF-CN': [shipment?.tracking_number !== undefined, 'shipment.tracking_number'],
    MAN: [shipment?.packs !== undefined, 'shipment.packs (with their SSCC-18)'],
  };
  return (profile.require_856 ?? []).flatMap((segment) => (has[segment][0] ? [] : [{ segment, needs: has[segment][1] }]));
}

function shipmentData(shipment: ShipmentInput, lines: ReadonlyMap<number, OutboundLine>): ShipmentData {
  return {
    carrier: shipment.carrier,
    ...(shipment.service === undefined ? {} : { service: shipment.service }),
    ...(shipment.tracking_number === undefined ? {} : { trackingNumber: shipment.tracking_number }),
    ...(shipment.bill_of_lading === undefined ? {} : { billOfLading: shipment.bill_of_lading }),
    ...(shipment.weight === undefined ? {} : { weight: { value: String(shipment.weight.value), unit: shipment.weight.unit } }),
    ...(shipment.packs === undefined
      ? {}
      : {
          packs: shipment.packs.map((pack) => ({
            sscc: pack.sscc,
            // The orders service checked every line_no against the order.
            items: pack.lines.flatMap((l) => {
              const line = lines.get(l.line_no);
              return line === undefined ? [] : [{ line, quantity: String(l.quantity) }];
            }),
          })),
        }),
  };
}

interface Context {
  order: OrderData;
  units: OrderUnits;
  detail: DocumentDetail;
  profile: DocumentProfile;
  at: Date;
  controlNumber: number;
  shipment: ShipmentInput | undefined;
  shippedAt: Date | undefined;
}

function documentBody(type: OutboundType, context: Context): Body {
  const stored = context.detail.lines ?? [];
  const poDate = context.detail.po_date ?? '';
  const lines = orderedLines(context.order, context.units, stored);
  if (type === '855') {
    const refused = stored.filter((l) => !l.accepted).map((l) => ({ line: ackLine(l), accepted: false }));
    return purchaseOrderAck({
      type: refused.length === 0 ? 'AD' : 'AC',
      poNumber: context.order.po_number,
      poDate,
      orderId: context.order.id,
      lines: [...[...lines.values()].map((line) => ({ line, accepted: true })), ...refused],
    });
  }
  if (type === '856') {
    return shipNotice({
      shipmentId: context.order.id,
      poNumber: context.order.po_number,
      poDate,
      orderId: context.order.id,
      date: ccyymmdd(context.at),
      time: hhmm(context.at),
      lines: [...lines.values()],
      packaging: context.profile.packaging ?? DEFAULT_PACKAGING,
      ...(context.shipment === undefined ? {} : { shipment: shipmentData(context.shipment, lines) }),
      ...(context.profile.ship_from === undefined ? {} : { shipFrom: context.profile.ship_from }),
      ...(context.detail.ship_to === undefined ? {} : { shipTo: context.detail.ship_to }),
    });
  }
  const terms = context.profile.terms;
  return invoice({
    invoiceNumber: `INV${String(context.controlNumber).padStart(9, '0')}`,
    date: ccyymmdd(context.at),
    poNumber: context.order.po_number,
    poDate,
    lines: [...lines.values()],
    // Line totals are whole cents, so the stored subtotal (1/10000) divides by 100 exactly.
    totalCents: context.units.subtotal / 100n,
    ...(context.profile.remit_to === undefined ? {} : { remitTo: context.profile.remit_to }),
    ...(context.detail.ship_to === undefined ? {} : { shipTo: context.detail.ship_to }),
    ...(terms === undefined
      ? {}
      : {
          terms: {
            netDays: terms.net_days,
            ...(terms.discount_percent === undefined ? {} : { discountPercent: terms.discount_percent }),
            ...(terms.discount_days === undefined ? {} : { discountDays: terms.discount_days }),
          },
        }),
    ...(context.shippedAt === undefined ? {} : { shippedDate: ccyymmdd(context.shippedAt) }),
  });
}

/** Runs in each status change's transaction, so an EDI order's 855/856/810 commits (or not) with the change. */
export function statusDocuments(clock: Clock, partners: EdiPartnersService): OrderStatusListener {
  return async (tx, { orgId, order, to, units, shipment }) => {
    const type = DOCUMENT_FOR[to];
    if (order.source !== 'edi' || type === undefined) return;
    const source = await messages.findOrderSource(tx, orgId, order.id);
    if (source === undefined || source.partner_id === null) return;
    // A partial PO got its 855 (AC, the refused lines IR) when it came in; confirming it would repeat that 855 word for word.
    if (type === '855' && source.status === 'partial') return;
    const partner = await partners.partnerById(tx, orgId, source.partner_id);
    const ours = await partners.ourProfile(tx, orgId);
    if (partner === undefined || ours === undefined) return;
    const profile = documentProfileSchema.parse(JSON.parse(partner.document_profile));
    const detail = documentDetailSchema.parse(JSON.parse(source.detail));
    const at = clock.now();
    let shippedAt: Date | undefined;
    if (type === '856') {
      const missing = missingFor856(profile, shipment);
      if (missing.length > 0) {
        throw unprocessable(
          `partner ${partner.name} requires ${missing.map((m) => m.segment).join(', ')} in its 856: send ${missing.map((m) => m.needs).join(', ')}`,
          missing,
        );
      }
      await shipments.insertShipment(tx, { org_id: orgId, order_id: order.id, shipped_at: at.toISOString(), shipment: JSON.stringify(shipment ?? null) });
    }
    if (type === '810') {
      const shipped = await shipments.findShipment(tx, orgId, order.id);
      if (shipped !== undefined) shippedAt = new Date(shipped.shipped_at);
    }
    const controlNumber = await partners.reserveControlNumbers(tx, orgId, 1);
    const body = documentBody(type, { order, units, detail, profile, at, controlNumber, shipment, shippedAt });
    const x12 = wrapSet(type, body, { profile: ours, partner, version: detail.version ?? '004010', controlNumber, date: at });
    await recordOutbound(tx, { orgId, partner, type, x12, controlNumber, relatedId: source.message_id, orderId: order.id, poNumber: order.po_number, deliver: true, at });
  };
}
