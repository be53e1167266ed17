import { toUnits } from '../../platform/money.js';
import { MAX_QUANTITY, MAX_UNIT_PRICE } from '../orders/orders.schemas.js';
import type { Product } from '../products/products.schemas.js';
import type { EdiError, StoredLine } from './edi.schemas.js';
import type { PoLine } from './purchase-order.js';

/** Units of measure that mean "each"; an order line has no unit, so a case or a pair cannot be taken as a count. */
const EACH_UNITS = new Set(['', 'EA']);

export interface AcceptedLine {
  line: PoLine;
  qualifier: string;
  productId: string;
  product: Product;
  quantity: number;
  unitPrice: number;
}

export interface LineVerdicts {
  accepted: AcceptedLine[];
  errors: EdiError[];
  /** Every line in 850 order, for the document detail (what 855/856/810 echo). */
  stored: StoredLine[];
}

/** The product id the SKU is read from: the first of the partner's qualifiers, in their order, that the line carries. */
export function pickProductId(line: PoLine, qualifiers: readonly string[]): { qualifier: string; id: string } | undefined {
  for (const qualifier of qualifiers) {
    const found = line.productIds.find((p) => p.qualifier === qualifier);
    if (found !== undefined) return found;
  }
  return undefined;
}

function lineError(line: PoLine, code: string, message: string): EdiError {
  return { code, message: `line ${line.lineId}: ${message}`, line: line.lineId };
}

/** Checks quantity, unit and price the way an order needs them; the first problem is the line's reason. */
function checkValues(line: PoLine): { quantity: number; unitPrice: number } | { code: string; message: string } {
  const quantity = Number(line.quantity);
  if (line.quantity === '' || !Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
    return { code: 'invalid_quantity', message: `quantity '${line.quantity}' (PO102) must be a whole number from 1 to ${MAX_QUANTITY}` };
  }
  if (!EACH_UNITS.has(line.unit)) return { code: 'unsupported_unit', message: `unit of measure '${line.unit}' (PO103) is not supported; send EA` };
  const unitPrice = Number(line.unitPrice);
  if (line.unitPrice === '' || !Number.isFinite(unitPrice) || unitPrice < 0 || unitPrice > MAX_UNIT_PRICE || toUnits(unitPrice) === undefined) {
    return { code: 'invalid_price', message: `unit price '${line.unitPrice}' (PO104) must be 0 to ${MAX_UNIT_PRICE} with at most 4 decimals` };
  }
  return { quantity, unitPrice };
}

/** Each line needs an active product (found by the partner's qualifier order in `catalog`, lower-cased SKUs) and order-fit values. */
export function judgeLines(lines: readonly PoLine[], qualifiers: readonly string[], catalog: ReadonlyMap<string, Product>): LineVerdicts {
  const verdicts: LineVerdicts = { accepted: [], errors: [], stored: [] };
  for (const line of lines) {
    const picked = pickProductId(line, qualifiers);
    const stored: StoredLine = {
      line_id: line.lineId,
      qualifier: picked?.qualifier ?? null,
      product_id: picked?.id ?? null,
      sku: null,
      quantity: line.quantity,
      unit: line.unit,
      unit_price: line.unitPrice,
      accepted: false,
    };
    verdicts.stored.push(stored);
    if (picked === undefined) {
      verdicts.errors.push(lineError(line, 'no_product_id', `no product id with a qualifier of ${qualifiers.join(', ')} (PO106 onwards)`));
      continue;
    }
    const product = catalog.get(picked.id.toLowerCase());
    if (product === undefined) {
      verdicts.errors.push(lineError(line, 'unknown_sku', `unknown SKU ${picked.id} (${picked.qualifier})`));
      continue;
    }
    if (product.status !== 'active') {
      verdicts.errors.push(lineError(line, 'inactive_sku', `SKU ${product.sku} is ${product.status}`));
      continue;
    }
    const values = checkValues(line);
    if ('code' in values) {
      verdicts.errors.push(lineError(line, values.code, values.message));
      continue;
    }
    stored.sku = product.sku;
    stored.accepted = true;
    verdicts.accepted.push({ line, qualifier: picked.qualifier, productId: picked.id, product, ...values });
  }
  return verdicts;
}
