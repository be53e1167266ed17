import type { Party } from '../partners/partners.schemas.js';
import { type X12Value } from '../x12/index.js';

/** Bodies (between ST and SE) of the documents the gateway sends for an 850's order: 855, 856, 810. */

export type Body = X12Value[][];

/** A line as the partner ordered it: their PO101, product id qualifier and unit, with our values. */
export interface OutboundLine {
  lineId: string;
  qualifier: string;
  productId: string;
  quantity: string;
  unit: string;
  unitPrice: string;
  /** Every product id the partner sent for the line, echoed as sent; without them, qualifier and productId. */
  productIds?: readonly { qualifier: string; id: string }[];
  /** PO105 as the partner sent it. */
  priceBasis?: string;
}

/** 855 BAK02: AD all accepted, AC accepted with changes (some lines rejected), RD the whole PO rejected. */
export type AckType = 'AD' | 'AC' | 'RD';

export interface PoAcknowledgment {
  type: AckType;
  poNumber: string;
  /** BEG05 of the 850 (BAK04 is mandatory). */
  poDate: string;
  /** BAK08, the seller's order number; absent when no order was made. */
  orderId?: string;
  lines: { line: OutboundLine; accepted: boolean }[];
}

const NUMERIC = /^\d+(\.\d+)?$/;
/** A rejected line echoes the partner's values only where they are numbers, so the 855 stays well-formed. */
const numberOrEmpty = (value: string): string => (NUMERIC.test(value) ? value : '');
const unitOf = (line: OutboundLine): string => (line.unit === '' ? 'EA' : line.unit);

function productPair(line: OutboundLine): string[] {
  if (line.productIds !== undefined && line.productIds.length > 0) return line.productIds.flatMap((p) => [p.qualifier, p.id]);
  return line.qualifier === '' || line.productId === '' ? [] : [line.qualifier, line.productId];
}

/** An N1 loop: N1 (name, N103/N104 id), N3 street, N4 city/state/postal/country, each only when there is data. */
function partyLoop(code: string, party: Party): Body {
  const loop: Body = [['N1', code, party.name, party.id_qualifier ?? '', party.id ?? '']];
  const street = (party.street ?? []).slice(0, 2);
  if (street.length > 0) loop.push(['N3', ...street]);
  if (party.city !== undefined || party.state !== undefined || party.postal !== undefined || party.country !== undefined) {
    loop.push(['N4', party.city ?? '', party.state ?? '', party.postal ?? '', party.country ?? '']);
  }
  return loop;
}

export function purchaseOrderAck(ack: PoAcknowledgment): Body {
  const bak: string[] = ['BAK', '00', ack.type, ack.poNumber, ack.poDate];
  if (ack.orderId !== undefined) bak.push('', '', '', ack.orderId);
  const body: Body = [bak];
  for (const { line, accepted } of ack.lines) {
    const quantity = numberOrEmpty(line.quantity);
    body.push(['PO1', line.lineId, quantity, unitOf(line), numberOrEmpty(line.unitPrice), line.priceBasis ?? '', ...productPair(line)]);
    body.push(['ACK', accepted ? 'IA' : 'IR', quantity, quantity === '' ? '' : unitOf(line)]);
  }
  if (ack.lines.length > 0) body.push(['CTT', String(ack.lines.length)]);
  return body;
}

/** What shipped, as the 856 says it; quantities and weight already as X12 numbers. */
export interface ShipmentData {
  /** TD503, the carrier's SCAC. */
  carrier: string;
  /** TD505 */
  service?: string;
  /** REF*CN */
  trackingNumber?: string;
  /** REF*BM */
  billOfLading?: string;
  weight?: { value: string; unit: string };
  /** Pack level (HL P, MAN*GM SSCC-18) with the lines each pack holds. */
  packs?: { sscc: string; items: { line: OutboundLine; quantity: string }[] }[];
}

interface ShipNotice {
  /** BSN02: one shipment per order, so the order id. */
  shipmentId: string;
  poNumber: string;
  poDate: string;
  orderId: string;
  /** CCYYMMDD and HHMM of shipping. */
  date: string;
  time: string;
  lines: OutboundLine[];
  shipment?: ShipmentData;
  /** TD101 packaging code. */
  packaging: string;
  shipFrom?: Party;
  shipTo?: Party;
}

/**
 * Shipment, order, [pack,] item levels: BSN05 0001 (S O P I) when packs are known, else 0004 (S O I). Without carrier
 * data the carrier is the seller's choice, which TD505 "BEST WAY" says.
 */
export function shipNotice(notice: ShipNotice): Body {
  const { shipment } = notice;
  const packs = shipment?.packs ?? [];
  const body: Body = [['BSN', '00', notice.shipmentId, notice.date, notice.time, packs.length > 0 ? '0001' : '0004'], ['HL', '1', '', 'S']];
  if (packs.length > 0 || shipment?.weight !== undefined) {
    const lading = packs.length > 0 ? [notice.packaging, String(packs.length)] : ['', ''];
    const weight = shipment?.weight === undefined ? [] : ['G', shipment.weight.value, shipment.weight.unit];
    body.push(['TD1', ...lading, '', '', '', ...weight]);
  }
  // TD502 2: TD503 is a SCAC; TD501 B: the carrier from origin to delivery.
  body.push(shipment === undefined ? ['TD5', '', '', '', '', 'BEST WAY'] : ['TD5', 'B', '2', shipment.carrier, '', shipment.service ?? '']);
  if (shipment?.billOfLading !== undefined) body.push(['REF', 'BM', shipment.billOfLading]);
  if (shipment?.trackingNumber !== undefined) body.push(['REF', 'CN', shipment.trackingNumber]);
  body.push(['DTM', '011', notice.date]);
  if (notice.shipFrom !== undefined) body.push(...partyLoop('SF', notice.shipFrom));
  if (notice.shipTo !== undefined) body.push(...partyLoop('ST', notice.shipTo));
  body.push(['HL', '2', '1', 'O'], ['PRF', notice.poNumber, '', '', notice.poDate], ['REF', 'VN', notice.orderId]);
  let hl = 2;
  const item = (parent: number, line: OutboundLine, quantity: string): void => {
    hl += 1;
    body.push(['HL', String(hl), String(parent), 'I'], ['LIN', line.lineId, ...productPair(line)], ['SN1', line.lineId, quantity, unitOf(line)]);
  };
  if (packs.length === 0) for (const line of notice.lines) item(2, line, line.quantity);
  for (const pack of packs) {
    hl += 1;
    const parent = hl;
    body.push(['HL', String(parent), '2', 'P'], ['MAN', 'GM', pack.sscc]);
    for (const { line, quantity } of pack.items) item(parent, line, quantity);
  }
  // CTT01 of an 856 counts its HL segments.
  body.push(['CTT', String(hl)]);
  return body;
}

interface Invoice {
  /** BIG02 (AN 1/22). */
  invoiceNumber: string;
  /** CCYYMMDD */
  date: string;
  poNumber: string;
  poDate: string;
  lines: OutboundLine[];
  /** TDS01: the invoice total in cents (N2). */
  totalCents: bigint;
  remitTo?: Party;
  shipTo?: Party;
  /** ITD: net days, with an early-payment discount when the partner's terms have one. */
  terms?: { netDays: number; discountPercent?: string; discountDays?: number };
  /** DTM*011, CCYYMMDD: when the order shipped, if known. */
  shippedDate?: string;
}

function termsSegment(terms: NonNullable<Invoice['terms']>): X12Value[] {
  // ITD01 08 basic discount offered, 05 discount not applicable; ITD02 3: counted from the invoice date.
  if (terms.discountPercent === undefined || terms.discountDays === undefined) return ['ITD', '05', '3', '', '', '', '', String(terms.netDays)];
  return ['ITD', '08', '3', terms.discountPercent, '', String(terms.discountDays), '', String(terms.netDays)];
}

export function invoice(inv: Invoice): Body {
  const body: Body = [['BIG', inv.date, inv.invoiceNumber, inv.poDate, inv.poNumber]];
  if (inv.remitTo !== undefined) body.push(...partyLoop('RE', inv.remitTo));
  if (inv.shipTo !== undefined) body.push(...partyLoop('ST', inv.shipTo));
  if (inv.terms !== undefined) body.push(termsSegment(inv.terms));
  if (inv.shippedDate !== undefined) body.push(['DTM', '011', inv.shippedDate]);
  for (const line of inv.lines) body.push(['IT1', line.lineId, line.quantity, unitOf(line), line.unitPrice, line.priceBasis ?? '', ...productPair(line)]);
  body.push(['TDS', inv.totalCents.toString()]);
  body.push(['CTT', String(inv.lines.length)]);
  return body;
}
