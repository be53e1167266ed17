import type { Services } from '../gateway.js';
import { ediTools } from '../modules/edi/edi.tools.js';
import { inventoryTools } from '../modules/inventory/inventory.tools.js';
import { objectsTools } from '../modules/objects/objects.tools.js';
import { ordersTools } from '../modules/orders/orders.tools.js';
import { productsTools } from '../modules/products/products.tools.js';
import { warrantyTools } from '../modules/warranty/warranty.tools.js';
import type { ToolDefinition } from './tool.js';

/** Every module's MCP tools. A new module adds its tools here (the parity test checks nothing is missed). */
export function allTools(services: Services): ToolDefinition[] {
  return [...productsTools(services.products), ...ordersTools(services.orders), ...inventoryTools(services.inventory), ...warrantyTools(services.warranty), ...objectsTools(services.objects), ...ediTools(services.edi)];
}
