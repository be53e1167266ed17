import type { X12Value } from './x12/x12.writer.js';

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
  return line.qualifier === '' || line.productId === '' ? [] : [line.qualifier, line.productId];
}

export function purchaseOrderAck(ack: PoAcknowledgment): Body {
  const bak: string[] = ['BAK', '00', ack.type, ack.poNumber, ack.poDate];
  if (ack.orderId !== undefined) bak.push('', '', '', ack.orderId);
  const body: Body = [bak];
  for (const { line, accepted } of ack.lines) {
    const quantity = numberOrEmpty(line.quantity);
    body.push(['PO1', line.lineId, quantity, unitOf(line), numberOrEmpty(line.unitPrice), '', ...productPair(line)]);
    body.push(['ACK', accepted ? 'IA' : 'IR', quantity, quantity === '' ? '' : unitOf(line)]);
  }
  if (ack.lines.length > 0) body.push(['CTT', String(ack.lines.length)]);
  return body;
}

export interface ShipNotice {
  /** BSN02: one shipment per order, so the order id. */
  shipmentId: string;
  poNumber: string;
  poDate: string;
  orderId: string;
  /** CCYYMMDD and HHMM of shipping. */
  date: string;
  time: string;
  lines: OutboundLine[];
}

/** Shipment, order, item levels (BSN05 0004); the carrier is the seller's choice, which TD505 "BEST WAY" says. */
export function shipNotice(notice: ShipNotice): Body {
  const body: Body = [
    ['BSN', '00', notice.shipmentId, notice.date, notice.time, '0004'],
    ['HL', '1', '', 'S'],
    ['TD5', '', '', '', '', 'BEST WAY'],
    ['DTM', '011', notice.date],
    ['HL', '2', '1', 'O'],
    ['PRF', notice.poNumber, '', '', notice.poDate],
    ['REF', 'VN', notice.orderId],
  ];
  notice.lines.forEach((line, i) => {
    body.push(['HL', String(i + 3), '2', 'I']);
    body.push(['LIN', line.lineId, ...productPair(line)]);
    body.push(['SN1', line.lineId, line.quantity, unitOf(line)]);
  });
  body.push(['CTT', String(notice.lines.length + 2)]);
  return body;
}

export interface Invoice {
  /** BIG02 (AN 1/22). */
  invoiceNumber: string;
  /** CCYYMMDD */
  date: string;
  poNumber: string;
  poDate: string;
  lines: OutboundLine[];
  /** TDS01: the invoice total in cents (N2). */
  totalCents: bigint;
}

export function invoice(inv: Invoice): Body {
  const body: Body = [['BIG', inv.date, inv.invoiceNumber, inv.poDate, inv.poNumber]];
  for (const line of inv.lines) body.push(['IT1', line.lineId, line.quantity, unitOf(line), line.unitPrice, '', ...productPair(line)]);
  body.push(['TDS', inv.totalCents.toString()]);
  body.push(['CTT', String(inv.lines.length)]);
  return body;
}
