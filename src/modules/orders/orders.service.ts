import { z } from 'zod';
import type { Clock } from '../../platform/core/clock.js';
import type { Executor, Tx } from '../../platform/db/schema.js';
import { AppError, invalidInput, invalidTransition, notFound, paramOf } from '../../platform/core/errors.js';
import { errorFromIssues } from '../../platform/core/issues.js';
import { decodeCursor, page, sincePage, sinceWindowOf } from '../../platform/core/pagination.js';
import { newId } from '../../platform/core/ids.js';
import { minorDigitsOf } from '../../platform/core/currencies.js';
import { formatUnits, lineTotalUnits, UNIT_DECIMALS, unitsFromDecimalText } from '../../platform/core/money.js';
import type { OrgsService } from '../../platform/orgs/orgs.service.js';
import { type DeliveriesService, type PublicDelivery, toPublicDelivery } from '../../platform/outbox/deliveries.service.js';
import { enqueueHubEvent } from '../../platform/outbox/outbox.js';
import type { CatalogEntry, ProductsService } from '../products/products.service.js';
import { orderSettings } from './order-currency.js';
import { canMove, nextStatuses, type OrderStatus, type TargetStatus } from './order-status.js';
import {
  type CreateOrderInput,
  ediOrderInput,
  ediPricedOrderInput,
  MAX_QUANTITY,
  MAX_UNIT_PRICE,
  type ListOrdersQuery,
  type Order,
  type OrderData,
  type OrderHeader,
  type ORDER_SOURCES,
  type ShipmentInput,
} from './orders.schemas.js';
import * as repo from './orders.repository.js';

type OrderSource = (typeof ORDER_SOURCES)[number];

/**
 * Runs inside the transaction of a status change, after the order row moved and before commit: what a
 * listener writes (EDI's outbound documents) commits or rolls back with the change.
 */
export type OrderStatusListener = (tx: Tx, change: OrderStatusChange) => Promise<void>;

/** One status change as listeners see it: the org first, like every repository call they make with it. */
interface OrderStatusChange {
  orgId: string;
  order: OrderData;
  from: OrderStatus;
  to: OrderStatus;
  /** Money as stored (integer 1/10000), so documents built from the change never pass prices through a float. */
  units: OrderUnits;
  /** Sent with a move to `shipped` only; checked against the order's lines. */
  shipment?: ShipmentInput;
}

export interface OrderUnits {
  subtotal: bigint;
  /** By line_no. */
  lines: ReadonlyMap<number, { unitPrice: bigint; lineTotal: bigint }>;
}

function unitsOf(row: repo.OrderRow, lines: repo.OrderLineRow[]): OrderUnits {
  return {
    subtotal: BigInt(row.subtotal),
    lines: new Map(lines.map((l) => [Number(l.line_no), { unitPrice: BigInt(l.unit_price), lineTotal: BigInt(l.line_total) }])),
  };
}

/** Packs, when given, hold every line's full quantity: one shipment per order, nothing left behind or packed twice. */
function checkPacks(shipment: ShipmentInput, lines: readonly repo.OrderLineRow[]): void {
  if (shipment.packs === undefined) return;
  const ordered = new Map(lines.map((l) => [Number(l.line_no), Number(l.quantity)]));
  const packed = new Map<number, number>();
  const problems: { path: string; message: string }[] = [];
  shipment.packs.forEach((pack, p) =>
    pack.lines.forEach((line, i) => {
      if (!ordered.has(line.line_no)) problems.push({ path: `shipment.packs.${p}.lines.${i}.line_no`, message: `the order has no line ${line.line_no}` });
      packed.set(line.line_no, (packed.get(line.line_no) ?? 0) + line.quantity);
    }),
  );
  for (const [lineNo, quantity] of ordered) {
    const got = packed.get(lineNo) ?? 0;
    if (got !== quantity) problems.push({ path: 'shipment.packs', message: `line ${lineNo}: ${quantity} ordered, ${got} packed` });
  }
  const first = problems[0];
  if (first) throw invalidInput(`${first.path}: ${first.message}`, problems);
}

/** Charges are amounts payable: no more decimals than the order's currency has (the schema allowed up to 4). */
function checkCharges(shipment: ShipmentInput, currency: string): void {
  const digits = currencyDigits(currency);
  const problems = (shipment.charges ?? []).flatMap((charge, i) =>
    (charge.amount.split('.')[1] ?? '').length > digits
      ? [{ path: `shipment.charges.${i}.amount`, message: `${currency} amounts have ${digits === 0 ? 'no decimals' : `at most ${digits} decimals`}, got ${charge.amount}` }]
      : [],
  );
  const first = problems[0];
  if (first) throw invalidInput(`${first.path}: ${first.message}`, problems);
}

/** The minor-unit digits of a stored order's currency (validated on the way in). */
function currencyDigits(currency: string): number {
  const digits = minorDigitsOf(currency);
  if (digits === undefined) throw new Error(`unknown currency ${currency} stored on an order`);
  return digits;
}

/** One order line to judge, its price already in units so no caller passes money through a float. */
export interface LineRequest {
  sku: string;
  quantity: number;
  unitPriceUnits: number;
}

/** A line the catalog and the order rules accept: ready to become an order line. */
export interface PricedLine {
  product: CatalogEntry;
  quantity: number;
  unitPriceUnits: number;
}

interface LineProblem {
  code: 'unknown_sku' | 'inactive_sku' | 'invalid_quantity' | 'invalid_price';
  /** The line's field at fault, as on the wire. */
  field: 'sku' | 'quantity' | 'unit_price';
  message: string;
}

type LineVerdict = { ok: true; line: PricedLine } | { ok: false; problem: LineProblem };

/** Why `createOrRefuse` made no order: the PO number is used already, or the order breaks an order rule. */
export type OrderRefusal = { reason: 'po_number_taken' } | { reason: 'invalid'; message: string };

/** Catalog entries by lower-cased SKU, as read for judging lines. */
export type Catalog = ReadonlyMap<string, CatalogEntry>;

/** An EDI order whose lines were judged already (judgeLines): creating it reads the catalog no more. */
type PricedOrderInput = OrderHeader & { priced: PricedLine[] };

const MAX_UNIT_PRICE_UNITS = MAX_UNIT_PRICE * 10 ** UNIT_DECIMALS;

/** The order rules for one line whose product was found. */
function judgeLine(line: LineRequest, product: CatalogEntry): LineVerdict {
  if (product.status !== 'active') return { ok: false, problem: { code: 'inactive_sku', field: 'sku', message: `sku ${line.sku} is ${product.status}` } };
  if (!Number.isInteger(line.quantity) || line.quantity < 1 || line.quantity > MAX_QUANTITY) {
    return { ok: false, problem: { code: 'invalid_quantity', field: 'quantity', message: `quantity ${line.quantity} must be a whole number from 1 to ${MAX_QUANTITY}` } };
  }
  if (!Number.isSafeInteger(line.unitPriceUnits) || line.unitPriceUnits < 0 || line.unitPriceUnits > MAX_UNIT_PRICE_UNITS) {
    return { ok: false, problem: { code: 'invalid_price', field: 'unit_price', message: `unit price must be from 0 to ${MAX_UNIT_PRICE}` } };
  }
  return { ok: true, line: { product, quantity: line.quantity, unitPriceUnits: line.unitPriceUnits } };
}

const cursorSchema = z.object({ c: z.string(), i: z.string() });

/** An order priced and ready to write. */
interface NewOrder {
  row: repo.OrderRow;
  lines: repo.OrderLineRow[];
  data: OrderData;
}
const CONCURRENT_RETRIES = 3;

function toOrderData(row: repo.OrderRow, lines: repo.OrderLineRow[]): OrderData {
  const digits = currencyDigits(row.currency);
  return {
    id: row.id,
    po_number: row.po_number,
    status: row.status,
    ship_to: row.ship_to,
    notes: row.notes,
    source: row.source,
    currency: row.currency,
    lines: lines.map((l) => ({
      line_no: Number(l.line_no),
      sku: l.sku,
      product_name: l.product_name,
      quantity: Number(l.quantity),
      currency: row.currency,
      unit_price: formatUnits(l.unit_price, UNIT_DECIMALS),
      line_total: formatUnits(l.line_total, digits),
    })),
    totals: { line_count: Number(row.line_count), total_quantity: Number(row.total_quantity), subtotal: formatUnits(row.subtotal, digits) },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** EDI input the schema refuses is a 422 listing every issue, thrown before anything is read or written. */
function ediValid<T>(schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw errorFromIssues('order_invalid', parsed.error.issues, 'order');
}

/** A committed order's event that the outbox no longer holds was delivered, then purged (retention keeps all others). */
const DELIVERED_AND_PURGED: PublicDelivery = { status: 'delivered', attempts: 1, last_error: null };

function withDelivery(data: OrderData, delivery: PublicDelivery | undefined): Order {
  return { ...data, delivery: delivery ?? toPublicDelivery(undefined) };
}

/** The order once its hub event was tried right after commit. */
export function orderDelivered(order: Order, delivery: PublicDelivery): Order {
  return { ...order, delivery };
}

/** The org-scoped order resource layer behind REST, MCP and EDI. */
export class OrdersService {
  private readonly listeners: OrderStatusListener[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly products: ProductsService,
    private readonly deliveryStates: DeliveriesService,
    private readonly orgs: OrgsService,
  ) {}

  /** For other modules (EDI): called in the transaction of every status change. */
  onStatusChanged(listener: OrderStatusListener): void {
    this.listeners.push(listener);
  }

  /** Newest first, or with updated_since / created_since every order since then in time order (decisions.md). */
  async list(db: Executor, orgId: string, query: ListOrdersQuery): Promise<{ orders: Order[]; next_cursor: string | null }> {
    const since = sinceWindowOf(query);
    if (since !== undefined) {
      const rows = await repo.listOrders(db, orgId, { ...(query.status ? { status: query.status } : {}), since, limit: query.limit + 1 });
      const { items, next_cursor } = sincePage(rows, query.limit, since, (row) => ({ at: row[since.column], id: row.id }));
      return { orders: await this.present(db, orgId, items), next_cursor };
    }
    const after = decodeCursor(query.cursor, cursorSchema);
    const rows = await repo.listOrders(db, orgId, {
      ...(query.status ? { status: query.status } : {}),
      ...(after ? { before: { createdAt: after.c, id: after.i } } : {}),
      limit: query.limit + 1,
    });
    const { items, next_cursor } = page(rows, query.limit, (row) => ({ c: row.created_at, i: row.id }));
    return { orders: await this.present(db, orgId, items), next_cursor };
  }

  async get(db: Executor, orgId: string, idOrPoNumber: string): Promise<Order> {
    const row = await repo.findOrder(db, orgId, idOrPoNumber);
    if (!row) throw notFound(`order ${idOrPoNumber}`);
    const [order] = await this.present(db, orgId, [row]);
    if (!order) throw notFound(`order ${idOrPoNumber}`);
    return order;
  }

  /**
   * Creates an order in the caller's transaction, its hub event with it; the answer shows that event queued. An `edi`
   * order (up to 10,000 lines) is checked against the EDI rules here, a 422 listing every issue; lines judged already
   * (`priced`, judgeLines) are not looked up again. A used PO number is a 409. Both are thrown before anything is
   * written, so the caller's transaction stays usable.
   */
  async create(tx: Tx, orgId: string, source: OrderSource, input: CreateOrderInput | PricedOrderInput): Promise<Order> {
    const order =
      'priced' in input
        ? await this.assemble(tx, orgId, source, ediValid(ediPricedOrderInput, input), input.priced)
        : await this.build(tx, orgId, source, source === 'edi' ? ediValid(ediOrderInput, input) : input);
    await this.save(tx, order);
    return withDelivery(order.data, undefined);
  }

  /**
   * `create` for a caller that turns a refusal into its own answer (EDI: an 855 RD): the refusals come back as values
   * to branch on, not as errors to recognise by their code. Anything else still throws.
   */
  async createOrRefuse(tx: Tx, orgId: string, source: OrderSource, input: CreateOrderInput | PricedOrderInput): Promise<{ order: Order } | { refused: OrderRefusal }> {
    try {
      return { order: await this.create(tx, orgId, source, input) };
    } catch (err) {
      // create refuses before it writes anything, so the caller's transaction is still good to carry on.
      if (err instanceof AppError && err.code === 'already_exists') return { refused: { reason: 'po_number_taken' } };
      if (err instanceof AppError && (err.status === 422 || err.code === 'invalid_input')) return { refused: { reason: 'invalid', message: err.message } };
      throw err;
    }
  }

  /** Reads the catalog once for all the lines and gives each its verdict, in the order given. */
  async judgeLines(db: Executor, orgId: string, lines: readonly LineRequest[]): Promise<LineVerdict[]> {
    return this.judgeAgainst(await this.catalogOf(db, orgId, lines.map((l) => l.sku)), lines);
  }

  /** The org's catalog entries for these SKUs, keyed by lower-cased SKU: one read for the lines of several orders (an EDI slice). */
  catalogOf(db: Executor, orgId: string, skus: string[]): Promise<Catalog> {
    return this.products.catalogOf(db, orgId, skus);
  }

  /** Each line's verdict against a catalog read before (catalogOf), in the order given. */
  judgeAgainst(catalog: Catalog, lines: readonly LineRequest[]): LineVerdict[] {
    return lines.map((line) => {
      const product = catalog.get(line.sku.toLowerCase());
      if (product === undefined) return { ok: false, problem: { code: 'unknown_sku', field: 'sku', message: `unknown sku ${line.sku}` } };
      return judgeLine(line, product);
    });
  }

  /** submitted -> confirmed; a confirmed order stays as it is; any other state -> 409. */
  ack(tx: Tx, orgId: string, idOrPoNumber: string): Promise<Order> {
    return this.setStatus(tx, orgId, idOrPoNumber, 'confirmed');
  }

  /** A change's new event shows queued; a no-op shows the delivery of the order's last event as it stands. */
  async setStatus(tx: Tx, orgId: string, idOrPoNumber: string, to: TargetStatus, shipment?: ShipmentInput): Promise<Order> {
    if (shipment !== undefined && to !== 'shipped') throw invalidInput(`shipment: only a move to shipped carries a shipment, not one to ${to}`, undefined, 'shipment');
    const moved = await this.move(tx, orgId, idOrPoNumber, to, shipment);
    if (moved.changed) return withDelivery(moved.data, undefined);
    return withDelivery(moved.data, (await this.deliveryStates.publicStates(tx, [moved.lastEventId])).get(moved.lastEventId) ?? DELIVERED_AND_PURGED);
  }

  private async move(
    tx: Tx,
    orgId: string,
    idOrPoNumber: string,
    to: TargetStatus,
    shipment: ShipmentInput | undefined,
  ): Promise<{ data: OrderData; lastEventId: string; changed: boolean }> {
    for (let attempt = 0; attempt < CONCURRENT_RETRIES; attempt++) {
      const row = await repo.findOrder(tx, orgId, idOrPoNumber);
      if (!row) throw notFound(`order ${idOrPoNumber}`);
      const lines = await repo.findLines(tx, orgId, [row.id]);
      if (shipment !== undefined) {
        checkPacks(shipment, lines);
        checkCharges(shipment, row.currency);
      }
      const from = row.status;
      if (from === to) return { data: toOrderData(row, lines), lastEventId: row.last_event_id, changed: false };
      if (!canMove(from, to)) {
        throw invalidTransition(`order ${row.po_number}`, from, to, nextStatuses(from));
      }
      const now = this.clock.now();
      const at = now.toISOString();
      const eventId = newId('evt', now);
      const updated = await repo.updateStatus(tx, orgId, row.id, { from, to, at, eventId });
      // Another change won the race: look again at what it left.
      if (!updated) continue;
      const data = toOrderData(updated, lines);
      await enqueueHubEvent(tx, {
        type: 'order.status_changed',
        orgId,
        id: eventId,
        at: now,
        data: { order_id: row.id, po_number: row.po_number, from, to, changed_at: at },
      });
      const change: OrderStatusChange = { orgId, order: data, from, to, units: unitsOf(updated, lines), ...(shipment === undefined ? {} : { shipment }) };
      for (const listener of this.listeners) await listener(tx, change);
      return { data, lastEventId: eventId, changed: true };
    }
    throw new AppError('concurrent_change', `order ${idOrPoNumber} is being changed by another request; try again`);
  }

  /** Judges and prices the lines. Reads only: it runs before the transaction opens, which stays short. */
  private async build(db: Executor, orgId: string, source: OrderSource, input: CreateOrderInput): Promise<NewOrder> {
    const requests = input.lines.map((line, index) => {
      const unitPriceUnits = unitsFromDecimalText(line.unit_price);
      if (unitPriceUnits === undefined) throw invalidInput(`lines.${index}.unit_price: a decimal string with at most 4 decimals`, undefined, paramOf(['lines', index, 'unit_price']));
      return { sku: line.sku, quantity: line.quantity, unitPriceUnits };
    });
    const verdicts = await this.judgeLines(db, orgId, requests);
    const problems: { path: string; index: number; sku: string; code: LineProblem['code']; message: string }[] = [];
    const priced: PricedLine[] = [];
    verdicts.forEach((verdict, index) => {
      if (verdict.ok) priced.push(verdict.line);
      else problems.push({ path: `lines.${index}.${verdict.problem.field}`, index, sku: input.lines[index]?.sku ?? '', code: verdict.problem.code, message: verdict.problem.message });
    });
    const first = problems[0];
    // The first refused line's own code is the answer's (unknown_sku, ...); details list every line with its code.
    if (first) throw new AppError(first.code, `lines[${first.index}]: ${first.message}`, problems);
    return this.assemble(db, orgId, source, input, priced);
  }

  /** Numbers the lines from 1 and totals them in BigInt, each line total rounded to the currency's minor unit. */
  private async assemble(db: Executor, orgId: string, source: OrderSource, header: OrderHeader, priced: readonly PricedLine[]): Promise<NewOrder> {
    const currency = header.currency ?? (await this.orgs.settingsOf(orderSettings, orgId, db))['orders.currency'];
    const digits = currencyDigits(currency);
    const now = this.clock.now();
    const at = now.toISOString();
    const id = newId('ord', now);
    let subtotal = 0n;
    let totalQuantity = 0;
    const lines = priced.map((line, index): repo.OrderLineRow => {
      const lineTotal = lineTotalUnits(line.quantity, line.unitPriceUnits, digits);
      subtotal += lineTotal;
      totalQuantity += line.quantity;
      return {
        order_id: id,
        line_no: index + 1,
        org_id: orgId,
        sku: line.product.sku,
        product_name: line.product.name,
        quantity: line.quantity,
        unit_price: line.unitPriceUnits,
        line_total: Number(lineTotal),
      };
    });
    if (subtotal > BigInt(Number.MAX_SAFE_INTEGER)) throw new AppError('order_total_too_large', 'order subtotal is too large', undefined, undefined, 'lines');
    const eventId = newId('evt', now);
    const row: repo.OrderRow = {
      id,
      org_id: orgId,
      po_number: header.po_number,
      status: 'submitted',
      ship_to: header.ship_to,
      notes: header.notes ?? null,
      source,
      currency,
      line_count: lines.length,
      total_quantity: totalQuantity,
      subtotal: Number(subtotal),
      last_event_id: eventId,
      created_at: at,
      updated_at: at,
    };
    return { row, lines, data: toOrderData(row, lines) };
  }

  /** The order, its lines and its hub event: one transaction, so there is never one without the others. */
  private async save(tx: Tx, order: NewOrder): Promise<void> {
    const { row } = order;
    if (!(await repo.insertOrder(tx, row))) throw new AppError('already_exists', `an order with po_number ${row.po_number} already exists`, undefined, undefined, 'po_number');
    await repo.insertLines(tx, order.lines);
    await enqueueHubEvent(tx, { type: 'order.created', orgId: row.org_id, id: row.last_event_id, at: new Date(row.created_at), data: order.data });
  }

  private async present(db: Executor, orgId: string, rows: repo.OrderRow[]): Promise<Order[]> {
    const lines = await repo.findLines(db, orgId, rows.map((r) => r.id));
    const states = await this.deliveryStates.publicStates(db, rows.map((r) => r.last_event_id));
    const linesOf = new Map<string, repo.OrderLineRow[]>();
    for (const line of lines) {
      const list = linesOf.get(line.order_id);
      if (list) list.push(line);
      else linesOf.set(line.order_id, [line]);
    }
    return rows.map((row) => withDelivery(toOrderData(row, linesOf.get(row.id) ?? []), states.get(row.last_event_id) ?? DELIVERED_AND_PURGED));
  }
}
