import type { Services } from '../../gateway.js';
import type { GatewayModule } from '../../platform/operations/module.js';
import { inventoryOperations } from './inventory.operations.js';

export const inventoryModule: GatewayModule<Services> = {
  name: 'inventory',
  tag: { name: 'inventory', description: 'Stock levels reported by partners: applied to the catalog and forwarded to the hub.' },
  operations: (services) => inventoryOperations(services.inventory),
};
