import { z } from 'zod';
import { defineRead, defineWrite, type Operation } from '../../platform/operations/operation.js';
import { createOrderInput, listOrdersQuery, orderRefParams, orderSchema, setStatusInput } from './orders.schemas.js';
import { orderDelivered, type OrdersService } from './orders.service.js';
import { keyDoorOf } from '../../platform/auth/scopes.js';

const orderOut = z.object({ order: orderSchema });

const exampleOrder = {
  id: 'ord_01jxq4m8k2n7p3r5t9v1w6y0za',
  po_number: 'PO-2026-0142',
  status: 'submitted',
  ship_to: 'Dealer 12, 1 Main St, Springfield',
  notes: null,
  source: 'api',
  currency: 'USD',
  lines: [
    {
      line_no: 1,
      sku: 'MICH-225-45R17',
      product_name: 'Michelin Pilot Sport 5 225/45R17',
      quantity: 4,
      currency: 'USD',
      unit_price: '129.9900',
      line_total: '519.96',
    },
  ],
  totals: { line_count: 1, total_quantity: 4, subtotal: '519.96' },
  created_at: '2026-06-01T12:00:00.000Z',
  updated_at: '2026-06-01T12:00:00.000Z',
  delivery: { status: 'delivered', attempts: 1, last_error: null },
};
const exampleConfirmed = { ...exampleOrder, status: 'confirmed', updated_at: '2026-06-01T12:05:00.000Z' };
const exampleShipped = { ...exampleOrder, status: 'shipped', updated_at: '2026-06-03T09:30:00.000Z', delivery: { status: 'queued', attempts: 0, last_error: null } };

const MOVES =
  'submitted -> confirmed or cancelled; confirmed -> processing or cancelled; processing -> shipped or cancelled; shipped -> delivered';
const FORBIDDEN_MOVE = 'The order cannot move there from its status: `details` is `{ requested, status, allowed }`, the status asked, the current one and the allowed next ones.';
const NO_ORDER = 'No order with this id or PO number in your organisation.';

/** The order operations: each one REST route, one MCP tool and one OpenAPI operation. */
export function ordersOperations(orders: OrdersService): Operation[] {
  return [
    defineRead({
      name: 'orders_list',
      method: 'GET',
      path: '/v1/orders',
      scope: 'orders:read',
      summary: 'List orders',
      description:
        "List your organisation's sales orders, newest first (up to 50 per page), each with its lines, totals and hub delivery state. " +
        'Filter with `status` (submitted, confirmed, processing, shipped, delivered, cancelled). To sync, pass `updated_since` ' +
        '(every order changed at or after it) or `created_since` (every order created since): the list is then oldest first by ' +
        'that time. Pass `next_cursor` back as `cursor` for the next page.',
      query: listOrdersQuery,
      output: z.object({ orders: z.array(orderSchema), next_cursor: z.string().nullable().describe('cursor of the next page; null on the last') }),
      status: 200,
      returns: 'one page of orders: newest first, or oldest change first with updated_since or created_since.',
      errors: {},
      example: { query: { status: 'submitted', limit: '20' }, response: { orders: [exampleOrder], next_cursor: null } },
      handle: ({ db, orgId }, { query }) => orders.list(db, orgId, query),
    }),
    defineRead({
      name: 'orders_get',
      method: 'GET',
      path: '/v1/orders/:id_or_po_number',
      scope: 'orders:read',
      summary: 'Get an order',
      description:
        'Get one order by its id, or else by its PO number, with lines, totals (money as decimal strings in the order\'s `currency`: ' +
        'unit prices with 4 decimals, totals with the currency\'s minor-unit digits) and hub delivery state.',
      params: orderRefParams,
      output: orderOut,
      result: 'order',
      status: 200,
      returns: 'the order.',
      errors: { not_found: NO_ORDER },
      example: { params: { id_or_po_number: 'PO-2026-0142' }, response: { order: exampleOrder } },
      handle: ({ db, orgId }, { params }) => orders.get(db, orgId, params.id_or_po_number),
    }),
    defineWrite({
      name: 'orders_create',
      method: 'POST',
      path: '/v1/orders',
      scope: 'orders:write',
      summary: 'Create an order',
      description:
        'Create a sales order: `po_number` (unique in your organisation), `ship_to`, optional `notes`, optional `currency` (ISO 4217; ' +
        'your organisation\'s default when left out), and 1-500 `lines` of { sku, quantity, unit_price }, unit_price a decimal string ("129.99"). ' +
        'SKUs must be active catalog products (case-insensitive); an unknown or inactive one fails naming the line. The order starts `submitted` ' +
        'and is forwarded to the hub; a hub outage only leaves its delivery queued, the order is still created. A PO number already used fails with a conflict. ' +
        'Send an idempotency key to make a retry safe.',
      body: createOrderInput,
      output: orderOut,
      result: 'order',
      status: 201,
      returns: 'the new order.',
      errors: {
        already_exists: 'An order with this PO number exists in your organisation.',
        unknown_sku: 'A line names a SKU your catalog does not have. The first refused line\'s code is the answer\'s; `details` lists each as `{ path, index, sku, code, message }`.',
        inactive_sku: 'A line names an inactive or discontinued SKU (`details` as for `unknown_sku`).',
        invalid_quantity: 'A line\'s quantity is outside the order rules (`details` as for `unknown_sku`).',
        invalid_price: 'A line\'s unit price is outside the order rules (`details` as for `unknown_sku`).',
        order_total_too_large: 'The subtotal is too large to total exactly.',
      },
      hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
      example: {
        body: {
          po_number: 'PO-2026-0142',
          ship_to: 'Dealer 12, 1 Main St, Springfield',
          currency: 'USD',
          lines: [{ sku: 'MICH-225-45R17', quantity: 4, unit_price: '129.99' }],
        },
        response: { order: exampleOrder },
      },
      handle: ({ tx, orgId, auth }, { body }) => orders.create(tx, orgId, keyDoorOf(auth), body),
      afterDelivery: orderDelivered,
    }),
    defineWrite({
      name: 'orders_ack',
      method: 'POST',
      path: '/v1/orders/:id_or_po_number/ack',
      scope: 'orders:write',
      summary: 'Acknowledge an order',
      description:
        'Acknowledge a submitted order: it becomes confirmed and the change is forwarded to the hub. No request body. ' +
        'Acknowledging a confirmed order changes nothing; any other status fails with a conflict listing the allowed next statuses.',
      params: orderRefParams,
      output: orderOut,
      result: 'order',
      status: 200,
      returns: 'the order, confirmed.',
      errors: { not_found: NO_ORDER, conflict: `${FORBIDDEN_MOVE} Also when another change to the order keeps winning; try again.` },
      hints: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
      example: { params: { id_or_po_number: 'PO-2026-0142' }, response: { order: exampleConfirmed } },
      handle: ({ tx, orgId }, { params }) => orders.ack(tx, orgId, params.id_or_po_number),
      afterDelivery: orderDelivered,
    }),
    defineWrite({
      name: 'orders_set_status',
      method: 'PATCH',
      path: '/v1/orders/:id_or_po_number/status',
      scope: 'orders:write',
      summary: "Change an order's status",
      description:
        `Move an order along: ${MOVES}. The change is forwarded to the hub. ` +
        'Asking for the current status changes nothing; any other move fails with a conflict whose details list the allowed next statuses. ' +
        'A move to `shipped` may carry a `shipment` (carrier SCAC, tracking and bill of lading numbers, weight, packs with their SSCC-18 and ' +
        "contents); an order that came in by EDI sends it to the partner in its 856 ship notice. A shipment with any other status is refused.",
      params: orderRefParams,
      body: setStatusInput,
      output: orderOut,
      result: 'order',
      status: 200,
      returns: 'the order in its new status.',
      errors: {
        not_found: NO_ORDER,
        invalid_transition: FORBIDDEN_MOVE,
        concurrent_change: 'Another change to the order keeps winning; try again.',
        partner_requirements_unmet:
          "An EDI order's trading partner requires shipment data this call did not send (e.g. packs with SSCC-18, a bill of lading): " +
          '`details` lists what is missing.',
      },
      // Can cancel an order: that cannot be undone.
      hints: { readOnly: false, destructive: true, idempotent: true, openWorld: true },
      example: {
        params: { id_or_po_number: 'PO-2026-0142' },
        body: {
          status: 'shipped',
          shipment: {
            carrier: 'UPSN',
            tracking_number: '1Z999AA10123456784',
            bill_of_lading: 'BOL-88213',
            weight: { value: 92.5, unit: 'LB' },
            packs: [{ sscc: '000123456789012343', lines: [{ line_no: 1, quantity: 4 }] }],
          },
        },
        response: { order: exampleShipped },
      },
      handle: ({ tx, orgId }, { params, body }) => orders.setStatus(tx, orgId, params.id_or_po_number, body.status, body.shipment),
      afterDelivery: orderDelivered,
    }),
  ];
}
