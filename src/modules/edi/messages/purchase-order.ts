import type { Party } from '../partners/partners.schemas.js';
import type { CodedParty, PackSize } from './outbound-sets.js';
import { type Segment } from '../x12/index.js';

/** One PO1 line as sent: values stay text until they are checked against the order rules. */
export interface PoLine {
  /** PO101, or the line's ordinal when PO101 is empty. */
  lineId: string;
  /** PO102 */
  quantity: string;
  /** PO103 */
  unit: string;
  /** PO104 */
  unitPrice: string;
  /** PO105 */
  priceBasis: string;
  /** PO106/PO107, PO108/PO109, ... in order. */
  productIds: { qualifier: string; id: string }[];
  /** The line's PO4: pack (PO401), size (PO402), unit (PO403). */
  packSize?: PackSize;
  /** The line's DTM*010 (requested ship date). */
  shipDate?: string;
}

/** What the gateway takes from an 850: the header it maps onto an order, and its lines. */
export interface PurchaseOrder {
  /** BEG01 */
  purpose: string;
  /** BEG03 */
  poNumber: string;
  /** BEG05 (CCYYMMDD) */
  poDate: string;
  /** The N1*ST loop as address lines; undefined without one. */
  shipTo: string | undefined;
  /** The same loop as its parts, for the documents that echo it. */
  shipToParty: Party | undefined;
  /** Every header N1 loop with a name or an id, with its N101, in order. */
  parties: CodedParty[];
  /** Header DTM*010: the requested ship date. */
  shipDate: string | undefined;
  /** Header MSG01 and NTE02 texts. */
  notes: string | undefined;
  lines: PoLine[];
}

/** Segments that continue a header N1 loop; anything else ends it. */
const N1_LOOP = new Set(['N2', 'N3', 'N4', 'NX2', 'REF', 'PER', 'SI', 'FOB', 'TD1', 'TD5', 'TD3', 'TD4', 'PKG']);

const el = (segment: Segment, n: number): string => (segment.elements[n - 1] ?? '').trim();

function joinNonEmpty(parts: readonly string[], separator: string): string {
  return parts.filter((p) => p !== '').join(separator);
}

/** N4 as one address line: "Springfield, IL 62701 US". */
function cityLine(n4: Segment): string {
  const cityState = joinNonEmpty([el(n4, 1), joinNonEmpty([el(n4, 2), el(n4, 3)], ' ')], ', ');
  return joinNonEmpty([cityState, el(n4, 4)], ' ');
}

/** The ship-to party's name: N102, else its identification code (N104, e.g. a store number). */
function partyName(n1: Segment): string {
  return el(n1, 2) !== '' ? el(n1, 2) : el(n1, 4);
}

function nonEmpty(fields: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== ''));
}

function readLine(po1: Segment, ordinal: number): PoLine {
  const productIds: { qualifier: string; id: string }[] = [];
  for (let i = 6; i + 1 <= po1.elements.length; i += 2) {
    const qualifier = el(po1, i);
    const id = el(po1, i + 1);
    if (qualifier !== '' && id !== '') productIds.push({ qualifier, id });
  }
  const lineId = el(po1, 1);
  return { lineId: lineId === '' ? String(ordinal) : lineId, quantity: el(po1, 2), unit: el(po1, 3), unitPrice: el(po1, 4), priceBasis: el(po1, 5), productIds };
}

/** DTM*010 (requested ship) with a CCYYMMDD date; anything else is not a date the 855 can schedule by. */
function requestedShipDate(dtm: Segment): string | undefined {
  return el(dtm, 1) === '010' && /^\d{8}$/.test(el(dtm, 2)) ? el(dtm, 2) : undefined;
}

/** What a line-level segment adds to its PO1: PO4 and DTM*010, the first of each. */
function addToLine(line: PoLine, segment: Segment): void {
  if (segment.id === 'PO4' && line.packSize === undefined && el(segment, 1) !== '') {
    line.packSize = { pack: el(segment, 1), ...nonEmpty({ size: el(segment, 2), unit: el(segment, 3) }) };
  }
  if (segment.id === 'DTM' && line.shipDate === undefined) {
    const date = requestedShipDate(segment);
    if (date !== undefined) line.shipDate = date;
  }
}

/** Reads an 850's segments (ST..SE, as validated) into a purchase order; checking its values is the caller's job. */
export function readPurchaseOrder(segments: readonly Segment[]): PurchaseOrder {
  let beg: Segment | undefined;
  let shipDate: string | undefined;
  const shipTo: string[] = [];
  let shipToParty: Party | undefined;
  const parties: CodedParty[] = [];
  // The N1 loop being read, if any.
  let current: Party | undefined;
  const notes: string[] = [];
  const lines: PoLine[] = [];
  let inShipTo = false;
  for (const segment of segments) {
    const { id } = segment;
    if (id === 'PO1') {
      lines.push(readLine(segment, lines.length + 1));
      continue;
    }
    const line = lines[lines.length - 1];
    if (line !== undefined) {
      addToLine(line, segment);
      continue;
    }
    if (id === 'BEG') beg = segment;
    else if (id === 'MSG' && el(segment, 1) !== '') notes.push(el(segment, 1));
    else if (id === 'NTE' && el(segment, 2) !== '') notes.push(el(segment, 2));
    else if (id === 'DTM') shipDate ??= requestedShipDate(segment);
    if (id === 'N1') {
      current = { name: el(segment, 2), ...(el(segment, 3) !== '' && el(segment, 4) !== '' ? { id_qualifier: el(segment, 3), id: el(segment, 4) } : {}) };
      // N1 needs a name or an id (X12 R0203); a loop with neither is not echoed.
      if (current.name !== '' || current.id !== undefined) parties.push({ code: el(segment, 1), party: current });
      // The first N1*ST wins; a second one would be a second ship-to the order cannot hold.
      inShipTo = el(segment, 1) === 'ST' && shipTo.length === 0;
      if (inShipTo) {
        shipTo.push(partyName(segment));
        shipToParty = current;
      }
      continue;
    }
    if (current === undefined) continue;
    if (!N1_LOOP.has(id)) {
      current = undefined;
      inShipTo = false;
      continue;
    }
    if (inShipTo && (id === 'N2' || id === 'N3')) shipTo.push(joinNonEmpty([el(segment, 1), el(segment, 2)], ' '));
    if (inShipTo && id === 'N4') shipTo.push(cityLine(segment));
    if (id === 'N3') current.street = [...(current.street ?? []), ...[el(segment, 1), el(segment, 2)].filter((v) => v !== '')];
    if (id === 'N4') Object.assign(current, nonEmpty({ city: el(segment, 1), state: el(segment, 2), postal: el(segment, 3), country: el(segment, 4) }));
  }
  const address = shipTo.filter((l) => l !== '');
  return {
    purpose: beg === undefined ? '' : el(beg, 1),
    poNumber: beg === undefined ? '' : el(beg, 3),
    poDate: beg === undefined ? '' : el(beg, 5),
    shipTo: address.length === 0 ? undefined : address.join('\n'),
    shipToParty: shipToParty !== undefined && (shipToParty.name !== '' || shipToParty.id !== undefined) ? shipToParty : undefined,
    parties,
    shipDate,
    notes: notes.length === 0 ? undefined : notes.join('\n'),
    lines,
  };
}
