import { defineWrite, type Operation } from '../../platform/operations/operation.js';
import { inventoryUpdateInput, inventoryUpdateResult } from './inventory.schemas.js';
import { inventoryDelivered, type InventoryService } from './inventory.service.js';

/** The inventory operations: each one REST route, one MCP tool and one OpenAPI operation. */
export function inventoryOperations(inventory: InventoryService): Operation[] {
  return [
    defineWrite({
      name: 'inventory_update',
      method: 'POST',
      path: '/v1/inventory',
      scope: 'inventory:write',
      summary: 'Update stock levels',
      description:
        'Report stock levels as `rows` of { sku, qty } (1-10,000 rows, whole numbers). Known SKUs (case-insensitive) get their stock_qty set ' +
        'and their stock status recomputed; SKUs not in the catalog are listed in `unknown_skus`. Every row is forwarded to the hub. ' +
        '`queued` tells whether the hub has yet to take the update: HTTP 200 when it took it during the call, 202 while it is queued ' +
        '(it is delivered later; the stock is set either way).',
      body: inventoryUpdateInput,
      output: inventoryUpdateResult,
      status: 202,
      statusOf: (out) => (out.queued ? 202 : 200),
      otherSuccess: { 200: 'The hub took the update during the call (`queued: false`).' },
      returns: 'the update, queued for the hub (`queued: true`).',
      errors: {},
      // Sets absolute levels: the stock quantities that were there are overwritten; the same call again leaves the same stock
      // (and forwards the same levels to the hub once more).
      hints: { readOnly: false, destructive: true, idempotent: true, openWorld: true },
      example: {
        body: { rows: [{ sku: 'MICH-225-45R17', qty: 24 }, { sku: 'CONT-205-55R16', qty: 0 }] },
        response: { queued: true, delivery_id: 'evt_01jxq4m8k2n7p3r5t9v1w6y0zb', delivery_status: 'queued', applied: 1, unknown_skus: ['CONT-205-55R16'] },
      },
      handle: ({ tx, orgId }, { body }) => inventory.update(tx, orgId, body),
      afterDelivery: inventoryDelivered,
    }),
  ];
}
