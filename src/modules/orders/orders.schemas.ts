import { z } from 'zod';
import { limitParam, ONE_SINCE, oneSince, sinceParams } from '../../platform/core/pagination.js';
import { freeText, identifier } from '../../platform/core/text-rules.js';
import { currencyCode } from '../../platform/core/currencies.js';
import { moneyText, UNIT_DECIMALS } from '../../platform/core/money.js';
import { ORDER_STATUSES, TARGET_STATUSES } from './order-status.js';

export const ORDER_SOURCES = ['api', 'mcp', 'edi'] as const;
const DELIVERY_STATUSES = ['queued', 'delivered', 'rejected'] as const;

/** A REST or MCP order carries at most this many lines; an EDI 850 may carry more. */
const MAX_API_LINES = 500;
const MAX_EDI_LINES = 10_000;
export const MAX_QUANTITY = 1_000_000;
export const MAX_UNIT_PRICE = 1_000_000;

// PO numbers travel in URL paths and EDI segments: identifier rules (no whitespace, control or invisible characters).
const poNumber = identifier(64, 'po_number').describe(
  'Your purchase order number, 1-64 characters without spaces, control or invisible characters; unique in your organisation.',
);

const lineInput = z.strictObject({
  sku: identifier(200, 'sku').describe('SKU of an active catalog product, matched case-insensitively.'),
  quantity: z
    .number()
    .int('quantity must be a whole number')
    .positive('quantity must be positive')
    .max(MAX_QUANTITY)
    .describe(`Units ordered, a whole number from 1 to ${MAX_QUANTITY.toLocaleString('en-US')}.`),
  unit_price: moneyText('unit_price', { decimals: UNIT_DECIMALS, max: MAX_UNIT_PRICE }).describe(
    `Price per unit in the order's currency, a decimal string from "0" to "${MAX_UNIT_PRICE}" with at most 4 decimals in any currency ` +
      '(e.g. "129.99", "0.0450"); a JSON number is refused.',
  ),
});

/** The order's currency as input and output: an ISO 4217 code. */
const CURRENCY_TEXT = 'ISO 4217 code (USD, EUR, JPY, ...)';

function createOrderInputWith(maxLines: number) {
  return z.strictObject({
    po_number: poNumber,
    ship_to: freeText(1000, { min: 1, trim: true, what: 'ship_to', multiline: true }).describe('Where to deliver: the address as text, 1-1000 characters (trimmed).'),
    notes: freeText(4000, { what: 'notes', multiline: true }).nullable().optional().describe('Free-text notes for the order, up to 4000 characters; null or left out for none.'),
    currency: currencyCode('currency')
      .optional()
      .describe(`The ${CURRENCY_TEXT} of every price and total of the order; left out, your organisation's default (orders.currency, USD unless set).`),
    lines: z
      .array(lineInput)
      .min(1, 'at least one line is required')
      .max(maxLines, `at most ${maxLines} lines`)
      .describe(`The order lines, 1-${maxLines.toLocaleString('en-US')}, each { sku, quantity, unit_price }; numbered from 1 in the order given.`),
  });
}

export const createOrderInput = createOrderInputWith(MAX_API_LINES);
export const ediOrderInput = createOrderInputWith(MAX_EDI_LINES);
export type CreateOrderInput = z.infer<typeof createOrderInput>;
export type OrderHeader = Omit<CreateOrderInput, 'lines'>;

/** An EDI order with lines the orders service judged already: the header as above, the lines only counted. */
export const ediPricedOrderInput = ediOrderInput.omit({ lines: true }).extend({
  priced: z.array(z.unknown()).min(1, 'at least one line is required').max(MAX_EDI_LINES, `at most ${MAX_EDI_LINES} lines`),
});

/**
 * Money on the wire is a decimal string (docs/decisions.md): unit_price with 4 decimals in every currency, totals with
 * the currency's minor-unit digits (USD "519.96", JPY "520", KWD "12.345").
 */
const unitPriceOut = z
  .string()
  .regex(/^\d+\.\d{4}$/)
  .describe('price per unit: a decimal string with exactly 4 decimals, e.g. "129.9900"');
const amountOut = (what: string) =>
  z
    .string()
    .regex(/^\d+(?:\.\d{1,4})?$/)
    .describe(`${what}: a decimal string with the currency's minor-unit digits (USD "519.96", JPY "520", KWD "12.345")`);
const currencyOut = z.string().describe(`the order's ${CURRENCY_TEXT}`);

const orderLineSchema = z.object({
  line_no: z.number().int().describe('1-based position in the order'),
  sku: z.string().describe('the SKU as the catalog spells it'),
  product_name: z.string().describe('the product name when the order was placed'),
  quantity: z.number().int(),
  currency: currencyOut,
  unit_price: unitPriceOut,
  line_total: amountOut('quantity x unit_price, rounded half away from zero to the minor unit'),
});

const orderDataSchema = z.object({
  id: z.string().describe('ord_ followed by 26 characters'),
  po_number: z.string(),
  status: z.enum(ORDER_STATUSES).describe('submitted -> confirmed -> processing -> shipped -> delivered; or cancelled'),
  ship_to: z.string(),
  notes: z.string().nullable(),
  source: z.enum(ORDER_SOURCES).describe('the door the order came through'),
  currency: currencyOut,
  lines: z.array(orderLineSchema),
  totals: z.object({
    line_count: z.number().int(),
    total_quantity: z.number().int(),
    subtotal: amountOut('sum of the line totals'),
  }),
  created_at: z.string().describe('ISO 8601 UTC'),
  updated_at: z.string().describe('ISO 8601 UTC'),
});
export type OrderData = z.infer<typeof orderDataSchema>;

export const orderSchema = orderDataSchema
  .extend({
    delivery: z
      .object({
        status: z.enum(DELIVERY_STATUSES).describe('queued until the hub took the latest event, then delivered; rejected if the hub refused it'),
        attempts: z.number().int().describe('send attempts so far'),
        last_error: z.string().nullable().describe('why the last attempt failed, if it did'),
      })
      .describe("the hub delivery of the order's latest event (its creation or last status change)"),
  })
  .meta({ id: 'Order', description: 'A sales order with its lines, totals and hub delivery state.' });
export type Order = z.infer<typeof orderSchema>;

export const listOrdersQuery = z
  .strictObject({
    status: z.enum(ORDER_STATUSES).optional().describe('Only orders in this status.'),
    ...sinceParams(true),
    limit: limitParam(50, 50).describe('Orders per page, 1-50 (default 50).'),
    cursor: z.string().max(500).optional().describe('`next_cursor` of the previous page.'),
  })
  .refine(oneSince, ONE_SINCE);
export type ListOrdersQuery = z.infer<typeof listOrdersQuery>;

export const orderRefParams = z.strictObject({
  id_or_po_number: identifier(200, 'id_or_po_number').describe(
    'The order id (ord_...) or its PO number; an id match wins over a PO number (percent-encode a `/`).',
  ),
});

/** GS1 mod-10: weights 3,1,3,... from the digit left of the check digit; the check digit makes the sum a multiple of 10. */
export function gs1CheckDigitOk(digits: string): boolean {
  let sum = 0;
  for (let i = digits.length - 2, weight = 3; i >= 0; i--, weight = 4 - weight) sum += Number(digits[i]) * weight;
  return (10 - (sum % 10)) % 10 === Number(digits[digits.length - 1]);
}

const WEIGHT_UNITS = ['LB', 'KG'] as const;
const MAX_PACKS = 1000;
const MAX_WEIGHT = 1_000_000;

const packLineInput = z.strictObject({
  line_no: z.number().int('line_no must be a whole number').min(1).max(10_000).describe("The order line's `line_no` (1-based) packed here."),
  quantity: z
    .number()
    .int('quantity must be a whole number')
    .positive('quantity must be positive')
    .max(MAX_QUANTITY)
    .describe('Units of that line in this pack, a whole number.'),
});

const packInput = z.strictObject({
  sscc: z
    .string()
    .regex(/^\d{18}$/, 'sscc must be 18 digits (an SSCC-18, without the 00 application identifier)')
    .refine(gs1CheckDigitOk, 'sscc check digit (GS1 mod 10) is wrong')
    .describe('The SSCC-18 on the pack label: 18 digits, the last a GS1 mod-10 check digit (without the "(00)" application identifier).'),
  lines: z
    .array(packLineInput)
    .min(1, 'a pack holds at least one line')
    .max(500)
    .refine((lines) => new Set(lines.map((l) => l.line_no)).size === lines.length, 'a pack lists a line_no twice')
    .describe('What the pack holds: order lines and quantities; each line_no at most once per pack.'),
});

const MAX_CHARGES = 25;

const chargeInput = z.strictObject({
  type: z.enum(['charge', 'allowance']).describe('charge (added to the invoice) or allowance (taken off it).'),
  code: z
    .string()
    .regex(/^[A-Z][0-9]{3}$/, 'code must be an X12 SAC02 code: a capital letter and 3 digits (e.g. D240 freight)')
    .describe('X12 SAC02 charge/allowance code: D240 freight, G830 shipping and handling, C310 discount, F800 promotional allowance, ...'),
  // The order's currency bounds the decimals further (JPY none, USD 2): checked once the order is read (orders.service).
  amount: moneyText('amount', { decimals: UNIT_DECIMALS, max: MAX_UNIT_PRICE, positive: true }).describe(
    `Amount in the order's currency, a decimal string more than "0" and up to "${MAX_UNIT_PRICE}" with at most the currency's ` +
      'minor-unit digits (USD "12.50", JPY "1500"); a JSON number is refused.',
  ),
});

const shipmentInput = z
  .strictObject({
    carrier: z
      .string()
      .regex(/^[A-Z]{2,4}$/, 'carrier must be a SCAC: 2-4 capital letters (e.g. UPSN, FDEG)')
      .describe('The carrier\'s SCAC (Standard Carrier Alpha Code): 2-4 capital letters, e.g. UPSN, FDEG, ODFL.'),
    service: freeText(35, { min: 1, trim: true, what: 'shipment.service' })
      .optional()
      .describe('The carrier\'s service or routing as text (e.g. "GROUND"), up to 35 characters (trimmed).'),
    tracking_number: identifier(30, 'shipment.tracking_number').optional().describe('The carrier tracking (PRO) number, 1-30 characters without spaces.'),
    bill_of_lading: identifier(30, 'shipment.bill_of_lading').optional().describe('The bill of lading number, 1-30 characters without spaces.'),
    weight: z
      .strictObject({
        value: z
          .number()
          .positive('weight must be positive')
          .max(MAX_WEIGHT)
          .refine((v) => Math.round(v * 1000) / 1000 === v, 'weight has at most 3 decimals')
          .describe(`Gross weight, more than 0 and up to ${MAX_WEIGHT.toLocaleString('en-US')}, at most 3 decimals.`),
        unit: z.enum(WEIGHT_UNITS).describe('LB (pounds) or KG (kilograms).'),
      })
      .optional()
      .describe('Gross weight of the shipment.'),
    packs: z
      .array(packInput)
      .min(1, 'packs must not be empty; leave it out when packs are not known')
      .max(MAX_PACKS)
      .refine((packs) => new Set(packs.map((p) => p.sscc)).size === packs.length, 'two packs share an sscc')
      .optional()
      .describe(
        `The cartons or pallets, 1-${MAX_PACKS} of them, each with its SSCC-18 and contents. When given they must hold every order line's ` +
          'full quantity, no more and no less (one shipment per order).',
      ),
    charges: z
      .array(chargeInput)
      .min(1, 'charges must not be empty; leave it out when there are none')
      .max(MAX_CHARGES)
      .optional()
      .describe(
        `Charges and allowances of the shipment (freight is code D240), 1-${MAX_CHARGES}: an EDI order's 810 invoice lists them (SAC) ` +
          'and its total (TDS) is the lines plus charges less allowances.',
      ),
  })
  .describe('What shipped and how: only with status `shipped`. EDI orders send it to the partner in their 856 ship notice.');
export type ShipmentInput = z.infer<typeof shipmentInput>;

export const setStatusInput = z.strictObject({
  status: z.enum(TARGET_STATUSES).describe('The status to move to: confirmed, processing, shipped, delivered or cancelled (never submitted).'),
  shipment: shipmentInput.optional(),
});
