import { unitsFromDecimalText, wholeFromDecimalText } from '../../../platform/core/money.js';
import type { Catalog, LineRequest, OrdersService, PricedLine } from '../../orders/orders.service.js';
import type { EdiError, StoredLine } from './messages.schemas.js';
import type { PoLine } from './purchase-order.js';

/** Units of measure (355) that count single items: EA each, PC piece, UN unit. A case or a pair cannot be taken as a count. */
const EACH_UNITS = new Set(['', 'EA', 'PC', 'UN']);

interface PoLineVerdicts {
  /** The lines the order takes, in 850 order. */
  priced: PricedLine[];
  errors: EdiError[];
  /** Every line in 850 order, for the document detail (what 855/856/810 echo). */
  stored: StoredLine[];
}

/** The product id the SKU is read from: the first of the partner's qualifiers, in their order, that the line carries. */
function pickProductId(line: PoLine, qualifiers: readonly string[]): { qualifier: string; id: string } | undefined {
  for (const qualifier of qualifiers) {
    const found = line.productIds.find((p) => p.qualifier === qualifier);
    if (found !== undefined) return found;
  }
  return undefined;
}

function lineError(line: PoLine, code: string, message: string): EdiError {
  return { code, message: `line ${line.lineId}: ${message}`, line: line.lineId };
}

/** What only X12 decides: PO102-PO104 read as an order line needs them (the order's own rules come after). */
function readLine(line: PoLine, picked: { qualifier: string; id: string } | undefined, qualifiers: readonly string[]): LineRequest | EdiError {
  if (picked === undefined) return lineError(line, 'no_product_id', `no product id with a qualifier of ${qualifiers.join(', ')} (PO106 onwards)`);
  const quantity = wholeFromDecimalText(line.quantity);
  if (quantity === undefined) return lineError(line, 'invalid_quantity', `quantity '${line.quantity}' (PO102) is not a whole number`);
  if (!EACH_UNITS.has(line.unit)) return lineError(line, 'unsupported_unit', `unit of measure '${line.unit}' (PO103) is not supported; send EA (each), PC (piece) or UN (unit)`);
  const unitPriceUnits = unitsFromDecimalText(line.unitPrice);
  if (unitPriceUnits === undefined) return lineError(line, 'invalid_price', `unit price '${line.unitPrice}' (PO104) is not a decimal with at most 4 decimals`);
  return { sku: picked.id, quantity, unitPriceUnits };
}

/** The SKUs a PO's lines name (their picked product ids), for the catalog read they are judged against. */
export function skusNamed(lines: readonly PoLine[], qualifiers: readonly string[]): string[] {
  const skus: string[] = [];
  for (const line of lines) {
    const picked = pickProductId(line, qualifiers);
    if (picked !== undefined) skus.push(picked.id);
  }
  return skus;
}

/**
 * Each PO1 is read as X12 wants, then judged by the orders service against `catalog` (read once for a slice's POs,
 * orders.catalogOf over their skusNamed); the first problem is the line's reason.
 */
export function judgePoLines(orders: OrdersService, catalog: Catalog, input: { lines: readonly PoLine[]; qualifiers: readonly string[] }): PoLineVerdicts {
  const stored: StoredLine[] = [];
  // One slot per line, so the errors stay in 850 order whichever check found them.
  const errors: (EdiError | undefined)[] = [];
  const pending: { index: number; line: PoLine; echo: StoredLine; request: LineRequest }[] = [];
  input.lines.forEach((line, index) => {
    const picked = pickProductId(line, input.qualifiers);
    const echo: StoredLine = {
      line_id: line.lineId,
      qualifier: picked?.qualifier ?? null,
      product_id: picked?.id ?? null,
      sku: null,
      quantity: line.quantity,
      unit: line.unit,
      unit_price: line.unitPrice,
      accepted: false,
      // What the documents echo back: every product id as sent, and PO105.
      product_ids: line.productIds,
      ...(line.priceBasis === '' ? {} : { price_basis: line.priceBasis }),
      ...(line.packSize === undefined ? {} : { pack_size: line.packSize }),
      ...(line.shipDate === undefined ? {} : { ship_date: line.shipDate }),
    };
    stored.push(echo);
    const request = readLine(line, picked, input.qualifiers);
    errors.push('code' in request ? request : undefined);
    if (!('code' in request)) pending.push({ index, line, echo, request });
  });
  const judged = orders.judgeAgainst(catalog, pending.map((p) => p.request));
  const priced: PricedLine[] = [];
  pending.forEach(({ index, line, echo }, i) => {
    const verdict = judged[i];
    if (verdict === undefined) return;
    if (!verdict.ok) {
      errors[index] = lineError(line, verdict.problem.code, verdict.problem.message);
      return;
    }
    echo.sku = verdict.line.product.sku;
    echo.accepted = true;
    priced.push(verdict.line);
  });
  return { priced, errors: errors.filter((e) => e !== undefined), stored };
}
