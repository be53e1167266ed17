import { z } from 'zod';
import { CREATES, defineTool, READ_ONLY, type ToolDefinition, UPDATES } from '../../mcp/tool.js';
import { TARGET_STATUSES } from './order-status.js';
import { createOrderInput, listOrdersQuery, orderSchema } from './orders.schemas.js';
import type { OrdersService } from './orders.service.js';

const orderOut = z.object({ order: orderSchema });
const orderRef = z.string().min(1).max(200).describe('order id (ord_...) or PO number');

/** MCP door onto OrdersService: the same functions the REST routes call. */
export function ordersTools(orders: OrdersService): ToolDefinition[] {
  return [
    defineTool({
      name: 'orders_list',
      title: 'List orders',
      description:
        'List your organisation\'s most recent sales orders (newest first, up to 50), each with its lines, totals and hub delivery state. ' +
        'Filter with `status` (submitted, confirmed, processing, shipped, delivered, cancelled); pass `next_cursor` back as `cursor` for older orders.',
      scope: 'orders:read',
      rest: 'GET /v1/orders',
      input: listOrdersQuery,
      output: z.object({ orders: z.array(orderSchema), next_cursor: z.string().nullable() }),
      annotations: READ_ONLY,
      handler: (auth, input) => orders.list(auth, input),
    }),
    defineTool({
      name: 'orders_get',
      title: 'Get an order',
      description: 'Get one order by its id or its PO number, with lines, totals (money in currency units: unit prices to 4 decimals, totals to cents) and hub delivery state.',
      scope: 'orders:read',
      rest: 'GET /v1/orders/:idOrPoNumber',
      input: z.object({ id_or_po_number: orderRef }),
      output: orderOut,
      annotations: READ_ONLY,
      handler: async (auth, input) => ({ order: await orders.get(auth, input.id_or_po_number) }),
    }),
    defineTool({
      name: 'orders_create',
      title: 'Create an order',
      description:
        'Create a sales order: `po_number` (unique in your organisation), `ship_to`, optional `notes`, and 1-500 `lines` of { sku, quantity, unit_price }. ' +
        'SKUs must be active catalog products (case-insensitive). The order starts `submitted` and is forwarded to the hub; ' +
        'a hub outage only leaves the delivery queued. A PO number already used fails with a conflict.',
      scope: 'orders:write',
      rest: 'POST /v1/orders',
      input: createOrderInput,
      output: orderOut,
      annotations: CREATES,
      handler: async (auth, input) => ({ order: await orders.create(auth, input) }),
    }),
    defineTool({
      name: 'orders_ack',
      title: 'Acknowledge an order',
      description: 'Acknowledge a submitted order (it becomes confirmed). Acknowledging a confirmed order changes nothing; other states fail with a conflict.',
      scope: 'orders:write',
      rest: 'POST /v1/orders/:idOrPoNumber/ack',
      input: z.object({ id_or_po_number: orderRef }),
      output: orderOut,
      annotations: UPDATES,
      handler: async (auth, input) => ({ order: await orders.ack(auth, input.id_or_po_number) }),
    }),
    defineTool({
      name: 'orders_set_status',
      title: 'Change an order\'s status',
      description:
        'Move an order along: submitted -> confirmed or cancelled; confirmed -> processing or cancelled; processing -> shipped or cancelled; shipped -> delivered. ' +
        'Asking for the current status changes nothing; any other move fails with a conflict listing the allowed next states.',
      scope: 'orders:write',
      rest: 'PATCH /v1/orders/:idOrPoNumber/status',
      input: z.object({ id_or_po_number: orderRef, status: z.enum(TARGET_STATUSES) }),
      output: orderOut,
      annotations: UPDATES,
      handler: async (auth, input) => ({ order: await orders.setStatus(auth, input.id_or_po_number, input.status) }),
    }),
  ];
}
