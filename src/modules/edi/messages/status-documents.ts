import type { Clock } from '../../../platform/core/clock.js';
import { AppError } from '../../../platform/core/errors.js';
import { roundUnits, unitsFromDecimalText } from '../../../platform/core/money.js';
import type { OrderStatus } from '../../orders/order-status.js';
import type { OrderData, ShipmentInput } from '../../orders/orders.schemas.js';
import type { OrderStatusListener, OrderUnits } from '../../orders/orders.service.js';
import type { DocumentProfile, Party, RequiringDocument } from '../partners/partners.schemas.js';
import { documentProfileOf, type EdiPartnersService, type TradingPartner } from '../partners/partners.service.js';
import { type DocumentDetail, documentDetailSchema, type StoredLine } from './messages.schemas.js';
import * as messages from './messages.repository.js';
import { ackHeader, ackLine, lineSchedule } from './order-intake.js';
import {
  type Body,
  ccyymmdd,
  hhmm,
  invoice,
  missingSegments,
  type OutboundLine,
  purchaseOrderAck,
  type ShipmentData,
  shipNotice,
} from './outbound-sets.js';
import { recordOutbound, wrapSet } from './outbound.js';
import * as shipments from './shipments.repository.js';

/** The document an EDI order's partner gets when the order reaches each status. */
const DOCUMENT_FOR: Partial<Record<OrderStatus, RequiringDocument>> = { confirmed: '855', shipped: '856', delivered: '810' };

/** TD101 when the partner names none: corrugated cartons. */
const DEFAULT_PACKAGING = 'CTN25';

/**
 * X12 810 amounts (TDS01, SAC05) are N2, cents whatever the currency: exact for 0- and 2-digit currencies, rounded half
 * away from zero for the 3- and 4-digit ones (KWD, CLF), which N2 cannot carry.
 */
function centsOf(units: bigint): bigint {
  return roundUnits(units, 2) / 100n;
}

/** Integer 1/10000 units as an X12 decimal (89.99, 25.0125, 10): string arithmetic on the integer, never a float. */
export function unitsToDecimal(units: bigint): string {
  const sign = units < 0n ? '-' : '';
  const abs = units < 0n ? -units : units;
  const whole = (abs / 10_000n).toString();
  const fraction = (abs % 10_000n).toString().padStart(4, '0').replace(/0+$/, '');
  return `${sign}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** The order's lines as the partner ordered them: their PO101, product ids, unit, PO105 and PO4, our quantity, price and name. */
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
        description: line.product_name,
        ...(from?.product_ids === undefined ? {} : { productIds: from.product_ids }),
        ...(from?.price_basis === undefined ? {} : { priceBasis: from.price_basis }),
        ...(from?.pack_size === undefined ? {} : { packSize: from.pack_size }),
      });
    });
  return lines;
}

/** What the order (or the operator) can send so that a required segment is there. */
const NEEDS: Record<RequiringDocument, Record<string, string>> = {
  '855': {
    'N1-ST': "a ship-to (N1*ST) in the partner's 850",
    'N1-BT': "a bill-to (N1*BT) in the partner's 850",
    'N1-BY': "a buyer (N1*BY) in the partner's 850",
    'REF-IA': 'a vendor number in the partner profile (operator: partners profile --vendor-number)',
    'ACK-068': "a ship date: the 850's DTM*010 or lead days in the partner profile (operator: partners profile --lead-days)",
  },
  '856': {
    'N1-SF': 'a ship-from in the partner profile (operator: partners profile --ship-from)',
    'N1-ST': "a ship-to (N1*ST) in the partner's 850",
    TD1: 'shipment.weight',
    TD5: "shipment.carrier (or a default SCAC in the partner profile: partners profile --scac)",
    'REF-BM': 'shipment.bill_of_lading',
    'REF-CN': 'shipment.tracking_number',
    'REF-IA': 'a vendor number in the partner profile (operator: partners profile --vendor-number)',
    MAN: 'shipment.packs (with their SSCC-18)',
    PO4: 'nothing (PO4 is always sent when required)',
  },
  '810': {
    'N1-BT': "a bill-to: N1*BT in the partner's 850 or in the partner profile (operator: partners profile --bill-to)",
    'N1-RE': 'a remit-to in the partner profile (operator: partners profile --remit-to)',
    'N1-ST': "a ship-to (N1*ST) in the partner's 850",
    'REF-IA': 'a vendor number in the partner profile (operator: partners profile --vendor-number)',
    ITD: 'terms in the partner profile (operator: partners profile --terms)',
    'DTM-011': 'the shipment: move the order to shipped through the gateway',
    SAC: 'shipment.charges (freight is code D240)',
    CAD: "shipment.carrier (or a default SCAC in the partner profile: partners profile --scac)",
  },
};

interface Missing {
  document: RequiringDocument;
  segment: string;
  needs: string;
}

function missingFor(document: RequiringDocument, body: Body, profile: DocumentProfile): Missing[] {
  return missingSegments(body, profile.require?.[document] ?? []).map((segment) => ({ document, segment, needs: NEEDS[document][segment] ?? segment }));
}

/** A document short of what the partner requires is never sent: the status change that owes it is refused instead. */
function refuseThin(partner: TradingPartner, missing: readonly Missing[]): Error {
  const documents = [...new Set(missing.map((m) => m.document))];
  const segments = documents.map((d) => `${missing.filter((m) => m.document === d).map((m) => m.segment).join(', ')} in its ${d}`).join(' and ');
  return new AppError('partner_requirements_unmet', `partner ${partner.name} requires ${segments}: send ${[...new Set(missing.map((m) => m.needs))].join(', ')}`, missing, undefined, /^shipment(\.\w+)?/.exec(missing[0]?.needs ?? '')?.[0]);
}

function shipmentData(shipment: ShipmentInput | undefined, lines: ReadonlyMap<number, OutboundLine>, profile: DocumentProfile): ShipmentData {
  const carrier = shipment?.carrier ?? profile.scac;
  if (shipment === undefined) return carrier === undefined ? {} : { carrier };
  return {
    ...(carrier === undefined ? {} : { carrier }),
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
    ...(shipment.charges === undefined
      ? {}
      : {
          charges: shipment.charges.map((c) => ({
            kind: c.type === 'charge' ? ('C' as const) : ('A' as const),
            code: c.code,
            // The schema and the orders service checked the text: at most the currency's digits, in range.
            cents: centsOf(BigInt(unitsFromDecimalText(c.amount) ?? 0)),
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
  /** The move to shipped's shipment (856) or the one stored then (810). */
  shipment: ShipmentInput | undefined;
  shippedAt: Date | undefined;
}

function documentBody(type: RequiringDocument, context: Context): Body {
  const { detail, profile, at } = context;
  const stored = detail.lines ?? [];
  const poDate = detail.po_date ?? '';
  const lines = orderedLines(context.order, context.units, stored);
  const vendorNumber = profile.vendor_number === undefined ? {} : { vendorNumber: profile.vendor_number };
  const shipTo = detail.ship_to === undefined ? {} : { shipTo: detail.ship_to };
  if (type === '855') {
    const accepted = stored.filter((l) => l.accepted);
    const refused = stored.filter((l) => !l.accepted).map((l) => ({ line: ackLine(l), accepted: false }));
    return purchaseOrderAck({
      type: refused.length === 0 ? 'AD' : 'AC',
      poNumber: context.order.po_number,
      poDate,
      orderId: context.order.id,
      ...ackHeader(detail, at, profile),
      lines: [
        ...[...lines.values()].map((line, i) => {
          const from = accepted[i];
          return { line, accepted: true, ...(from === undefined ? {} : lineSchedule(from, detail, at, profile)) };
        }),
        ...refused,
      ],
    });
  }
  const shipment = shipmentData(context.shipment, lines, profile);
  if (type === '856') {
    // Our profile's ship-from, else the one the 850 named.
    const shipFrom = profile.ship_from ?? partyOf(detail, 'SF');
    return shipNotice({
      shipmentId: context.order.id,
      poNumber: context.order.po_number,
      poDate,
      orderId: context.order.id,
      date: ccyymmdd(at),
      time: hhmm(at),
      lines: [...lines.values()],
      shipment,
      packaging: profile.packaging ?? DEFAULT_PACKAGING,
      packSizes: profile.require?.['856']?.includes('PO4') ?? false,
      ...vendorNumber,
      ...shipTo,
      ...(shipFrom === undefined ? {} : { shipFrom }),
    });
  }
  const terms = profile.terms;
  const billTo = partyOf(detail, 'BT') ?? profile.bill_to;
  return invoice({
    invoiceNumber: `INV${String(context.controlNumber).padStart(9, '0')}`,
    date: ccyymmdd(at),
    poNumber: context.order.po_number,
    poDate,
    lines: [...lines.values()],
    linesCents: centsOf(context.units.subtotal),
    ...vendorNumber,
    ...shipTo,
    ...(billTo === undefined ? {} : { billTo }),
    ...(profile.remit_to === undefined ? {} : { remitTo: profile.remit_to }),
    ...(terms === undefined
      ? {}
      : {
          terms: {
            netDays: terms.net_days,
            ...(terms.discount_percent === undefined ? {} : { discountPercent: terms.discount_percent }),
            ...(terms.discount_days === undefined ? {} : { discountDays: terms.discount_days }),
          },
        }),
    ...(context.shippedAt === undefined ? {} : { shippedDate: ccyymmdd(context.shippedAt), shipment }),
  });
}

/** The first N1 loop of the 850 with this N101. */
function partyOf(detail: DocumentDetail, code: string): Party | undefined {
  return detail.parties?.find((p) => p.code === code)?.party;
}

/** The shipment stored with the move to shipped (null when it moved without one). */
function storedShipment(json: string): ShipmentInput | undefined {
  return (JSON.parse(json) as ShipmentInput | null) ?? undefined;
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
    const profile = documentProfileOf(partner);
    const detail = documentDetailSchema.parse(JSON.parse(source.detail));
    const at = clock.now();
    const context: Context = { order, units, detail, profile, at, controlNumber: 0, shipment, shippedAt: undefined };
    if (type === '856') {
      // The 810 is built from this shipment later: what it will lack is refused now, while the client can still send it.
      const missing = [...missingFor('856', documentBody('856', context), profile), ...missingFor('810', documentBody('810', { ...context, shippedAt: at }), profile)];
      if (missing.length > 0) throw refuseThin(partner, missing);
      await shipments.insertShipment(tx, { org_id: orgId, order_id: order.id, shipped_at: at.toISOString(), shipment: JSON.stringify(shipment ?? null) });
    }
    if (type === '810') {
      const shipped = await shipments.findShipment(tx, orgId, order.id);
      if (shipped !== undefined) Object.assign(context, { shippedAt: new Date(shipped.shipped_at), shipment: storedShipment(shipped.shipment) });
    }
    if (type !== '856') {
      const missing = missingFor(type, documentBody(type, context), profile);
      if (missing.length > 0) throw refuseThin(partner, missing);
    }
    context.controlNumber = await partners.reserveControlNumbers(tx, orgId, 1);
    const body = documentBody(type, context);
    const x12 = wrapSet(type, body, { profile: ours, partner, version: detail.version ?? '004010', controlNumber: context.controlNumber, date: at });
    await recordOutbound(tx, { orgId, partner, type, x12, controlNumber: context.controlNumber, relatedId: source.message_id, orderId: order.id, poNumber: order.po_number, deliver: true, at });
  };
}
