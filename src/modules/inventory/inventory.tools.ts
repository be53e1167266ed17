import { CREATES, defineTool, type ToolDefinition } from '../../mcp/tool.js';
import { inventoryUpdateInput, inventoryUpdateResult } from './inventory.schemas.js';
import type { InventoryService } from './inventory.service.js';

/** MCP door onto InventoryService. */
export function inventoryTools(inventory: InventoryService): ToolDefinition[] {
  return [
    defineTool({
      name: 'inventory_update',
      title: 'Update stock levels',
      description:
        'Report stock levels as `rows` of { sku, qty } (1-10,000 rows, whole numbers). Known SKUs get their stock_qty and stock status updated; ' +
        'SKUs not in the catalog are listed in `unknown_skus` and still forwarded to the hub. `queued` tells whether the hub has yet to take the update.',
      scope: 'inventory:write',
      rest: 'POST /v1/inventory',
      input: inventoryUpdateInput,
      output: inventoryUpdateResult,
      annotations: CREATES,
      handler: (auth, input) => inventory.update(auth, input),
    }),
  ];
}
