import type { Party } from '../partners/partners.schemas.js';
import { type X12Value } from '../x12/index.js';

/** Bodies (between ST and SE) of the documents the gateway sends for an 850's order: 855, 856, 810. */

export type Body = X12Value[][];

/** PO4 as the 850 sent it for a line: pack (PO401), size (PO402) and its unit (PO403). */
export interface PackSize {
  pack: string;
  size?: string;
  unit?: string;
}

/** A line as the partner ordered it: their PO101, product id qualifier and unit, with our values. */
export interface OutboundLine {
  lineId: string;
  qualifier: string;
  productId: string;
  /** What was ordered: PO102, or our order line's quantity (the same number). */
  quantity: string;
  unit: string;
  unitPrice: string;
  /** Every product id the partner sent for the line, echoed as sent; without them, qualifier and productId. */
  productIds?: readonly { qualifier: string; id: string }[];
  /** PO105 as the partner sent it. */
  priceBasis?: string;
  /** PID05 of the 810: our product's name. */
  description?: string;
  /** The 850's PO4, echoed in the 856 when the partner wants PO4. */
  packSize?: PackSize;
}

/** An N1 loop with its entity code (N101: ST, BT, BY, SF, RE, ...). */
export interface CodedParty {
  code: string;
  party: Party;
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
  /** BAK09, CCYYMMDD: the day we acknowledge. */
  date: string;
  /** REF*IA: our vendor number at the partner. */
  vendorNumber?: string;
  /** The 850's N1 loops (ST, BT, BY, ...), echoed in its order. */
  parties?: readonly CodedParty[];
  /** `shipDate` (CCYYMMDD) is the accepted line's schedule: ACK04 068 (current schedule ship) and ACK05. */
  lines: { line: OutboundLine; accepted: boolean; shipDate?: string }[];
}

const two = (n: number): string => String(n).padStart(2, '0');
/** A UTC day as X12 writes dates (DT 8/8). */
export const ccyymmdd = (d: Date): string => `${d.getUTCFullYear()}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}`;
export const hhmm = (d: Date): string => `${two(d.getUTCHours())}${two(d.getUTCMinutes())}`;

/**
 * When an accepted line is scheduled to ship (ACK05): the date the 850 asked, unless that comes before our lead time
 * from today allows; the lead time alone when the 850 asked none; undefined when neither says (ACK04/05 left out).
 */
export function scheduleDate(requested: string | undefined, today: Date, leadDays: number | undefined): string | undefined {
  const earliest = leadDays === undefined ? undefined : ccyymmdd(new Date(today.getTime() + leadDays * 86_400_000));
  if (requested === undefined || earliest === undefined) return requested ?? earliest;
  // CCYYMMDD compares as text.
  return requested < earliest ? earliest : requested;
}

const NUMERIC = /^\d+(\.\d+)?$/;
/** A rejected line echoes the partner's values only where they are numbers, so the 855 stays well-formed. */
const numberOrEmpty = (value: string): string => (NUMERIC.test(value) ? value : '');
const unitOf = (line: OutboundLine): string => (line.unit === '' ? 'EA' : line.unit);

/** Free text into an AN element: printable ASCII only (others become '?'), trimmed, cut at the element's width. */
function x12Text(value: string, width: number): string {
  return value.replace(/[^\x20-\x7e]/g, '?').trim().slice(0, width).trim();
}

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

const vendorRef = (vendorNumber: string | undefined): Body => (vendorNumber === undefined ? [] : [['REF', 'IA', vendorNumber]]);

/** 004010/005010 855 order: BAK, REF, N1 loops; per line PO1 then ACK (ACK04/ACK05: 068 and the schedule date); CTT. */
export function purchaseOrderAck(ack: PoAcknowledgment): Body {
  const bak: string[] = ['BAK', '00', ack.type, ack.poNumber, ack.poDate, '', '', '', ack.orderId ?? '', ack.date];
  const body: Body = [bak, ...vendorRef(ack.vendorNumber)];
  for (const { code, party } of ack.parties ?? []) body.push(...partyLoop(code, party));
  for (const { line, accepted, shipDate } of ack.lines) {
    const quantity = numberOrEmpty(line.quantity);
    body.push(['PO1', line.lineId, quantity, unitOf(line), numberOrEmpty(line.unitPrice), line.priceBasis ?? '', ...productPair(line)]);
    const schedule = accepted && shipDate !== undefined ? ['068', shipDate] : [];
    body.push(['ACK', accepted ? 'IA' : 'IR', quantity, quantity === '' ? '' : unitOf(line), ...schedule]);
  }
  if (ack.lines.length > 0) body.push(['CTT', String(ack.lines.length)]);
  return body;
}

/** What shipped, as the 856 and the 810 say it; quantities and weight already as X12 numbers, money in cents. */
export interface ShipmentData {
  /** TD503/CAD04, the carrier's SCAC: the shipment's, else the partner's default; none means no TD5 and no CAD. */
  carrier?: string;
  /** TD505/CAD05 */
  service?: string;
  /** REF*CN */
  trackingNumber?: string;
  /** REF*BM */
  billOfLading?: string;
  weight?: { value: string; unit: string };
  /** Pack level (HL P, MAN*GM SSCC-18) with the lines each pack holds. */
  packs?: { sscc: string; items: { line: OutboundLine; quantity: string }[] }[];
  /** SAC of the 810: C charges add to TDS, A allowances take off it. */
  charges?: { kind: 'A' | 'C'; code: string; cents: bigint }[];
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
  shipment: ShipmentData;
  /** TD101 packaging code. */
  packaging: string;
  shipFrom?: Party;
  shipTo?: Party;
  vendorNumber?: string;
  /** PO4 per item: the 850's, else one each per each (orders take only each units). */
  packSizes: boolean;
}

/**
 * Shipment, order, [pack,] item levels: BSN05 0001 (S O P I) when packs are known, else 0004 (S O I). TD5 only with a
 * real SCAC: a routing placeholder is what retail guides charge back for.
 */
export function shipNotice(notice: ShipNotice): Body {
  const { shipment } = notice;
  const packs = shipment.packs ?? [];
  const body: Body = [['BSN', '00', notice.shipmentId, notice.date, notice.time, packs.length > 0 ? '0001' : '0004'], ['HL', '1', '', 'S']];
  if (packs.length > 0 || shipment.weight !== undefined) {
    const lading = packs.length > 0 ? [notice.packaging, String(packs.length)] : ['', ''];
    const weight = shipment.weight === undefined ? [] : ['G', shipment.weight.value, shipment.weight.unit];
    body.push(['TD1', ...lading, '', '', '', ...weight]);
  }
  // TD502 2: TD503 is a SCAC; TD501 B: the carrier from origin to delivery.
  if (shipment.carrier !== undefined) body.push(['TD5', 'B', '2', shipment.carrier, '', shipment.service ?? '']);
  if (shipment.billOfLading !== undefined) body.push(['REF', 'BM', shipment.billOfLading]);
  if (shipment.trackingNumber !== undefined) body.push(['REF', 'CN', shipment.trackingNumber]);
  body.push(['DTM', '011', notice.date]);
  if (notice.shipFrom !== undefined) body.push(...partyLoop('SF', notice.shipFrom));
  if (notice.shipTo !== undefined) body.push(...partyLoop('ST', notice.shipTo));
  body.push(['HL', '2', '1', 'O'], ['PRF', notice.poNumber, '', '', notice.poDate], ['REF', 'VN', notice.orderId], ...vendorRef(notice.vendorNumber));
  let hl = 2;
  const item = (parent: number, line: OutboundLine, quantity: string): void => {
    hl += 1;
    // SN102/SN103 shipped here, SN105/SN106 ordered (P0506).
    body.push(['HL', String(hl), String(parent), 'I'], ['LIN', line.lineId, ...productPair(line)], ['SN1', line.lineId, quantity, unitOf(line), '', line.quantity, unitOf(line)]);
    if (notice.packSizes) {
      const ps = line.packSize ?? { pack: '1', size: '1', unit: 'EA' };
      body.push(['PO4', ps.pack, ps.size ?? '', ps.size === undefined ? '' : (ps.unit ?? '')]);
    }
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
  /** The lines' total in cents: the sum of the order's line totals, each rounded to the cent. */
  linesCents: bigint;
  vendorNumber?: string;
  billTo?: Party;
  remitTo?: Party;
  shipTo?: Party;
  /** ITD: net days, with an early-payment discount when the partner's terms have one. */
  terms?: { netDays: number; discountPercent?: string; discountDays?: number };
  /** DTM*011, CCYYMMDD: when the order shipped, if known. */
  shippedDate?: string;
  /** CAD and the SAC charges and allowances, when the order shipped through the gateway. */
  shipment?: ShipmentData;
}

function termsSegment(terms: NonNullable<Invoice['terms']>): X12Value[] {
  // ITD01 08 basic discount offered, 05 discount not applicable; ITD02 3: counted from the invoice date.
  if (terms.discountPercent === undefined || terms.discountDays === undefined) return ['ITD', '05', '3', '', '', '', '', String(terms.netDays)];
  return ['ITD', '08', '3', terms.discountPercent, '', String(terms.discountDays), '', String(terms.netDays)];
}

/** TDS01: the lines plus charges less allowances, in cents (N2). */
export function invoiceTotalCents(linesCents: bigint, charges: ShipmentData['charges']): bigint {
  return (charges ?? []).reduce((total, c) => (c.kind === 'C' ? total + c.cents : total - c.cents), linesCents);
}

/** CAD (R0504, P0708): the carrier and one reference, the bill of lading if there is one, else the tracking number. */
function carrierDetail(shipment: ShipmentData): X12Value[] {
  const ref = shipment.billOfLading !== undefined ? ['BM', shipment.billOfLading] : shipment.trackingNumber !== undefined ? ['CN', shipment.trackingNumber] : [];
  return ['CAD', '', '', '', shipment.carrier ?? '', shipment.service ?? '', '', ...ref];
}

/** 004010/005010 810 order: BIG, REF, N1 loops, ITD, DTM; IT1 with PID per line; TDS, CAD, SAC, CTT. */
export function invoice(inv: Invoice): Body {
  const body: Body = [['BIG', inv.date, inv.invoiceNumber, inv.poDate, inv.poNumber], ...vendorRef(inv.vendorNumber)];
  if (inv.billTo !== undefined) body.push(...partyLoop('BT', inv.billTo));
  if (inv.remitTo !== undefined) body.push(...partyLoop('RE', inv.remitTo));
  if (inv.shipTo !== undefined) body.push(...partyLoop('ST', inv.shipTo));
  if (inv.terms !== undefined) body.push(termsSegment(inv.terms));
  if (inv.shippedDate !== undefined) body.push(['DTM', '011', inv.shippedDate]);
  for (const line of inv.lines) {
    body.push(['IT1', line.lineId, line.quantity, unitOf(line), line.unitPrice, line.priceBasis ?? '', ...productPair(line)]);
    const description = line.description === undefined ? '' : x12Text(line.description, 80);
    // PID01 F: free-form description in PID05.
    if (description !== '') body.push(['PID', 'F', '', '', '', description]);
  }
  const charges = inv.shipment?.charges ?? [];
  body.push(['TDS', invoiceTotalCents(inv.linesCents, charges).toString()]);
  if (inv.shipment?.carrier !== undefined) body.push(carrierDetail(inv.shipment));
  for (const c of charges) body.push(['SAC', c.kind, c.code, '', '', c.cents.toString()]);
  body.push(['CTT', String(inv.lines.length)]);
  return body;
}

/** Whether a body carries a requirable segment (partners.schemas REQUIRABLE): `N1-ST` N1*ST, `REF-IA`, `DTM-011`, `TD5`... */
function carries(body: Body, code: string): boolean {
  if (code === 'ACK-068') return body.filter((s) => s[0] === 'ACK' && s[1] !== 'IR').every((s) => s[4] === '068' && s[5] !== undefined && s[5] !== '');
  const [id, qualifier] = code.split('-');
  return body.some((s) => s[0] === id && (qualifier === undefined || s[1] === qualifier));
}

/** The required segments a body lacks, in the order the profile lists them. */
export function missingSegments(body: Body, required: readonly string[]): string[] {
  return required.filter((code) => !carries(body, code));
}
