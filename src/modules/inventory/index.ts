import type { ModuleDefinition } from '../../platform/module-definition.js';
import { inventoryOperations } from './inventory.operations.js';
import { InventoryService } from './inventory.service.js';

declare module '../../platform/module-definition.js' {
  interface Services {
    inventory: InventoryService;
  }
}

export const inventoryModule: ModuleDefinition = {
  name: 'inventory',
  scopes: { 'inventory:write': 'send stock levels' },
  tag: { name: 'inventory', description: 'Stock levels reported by partners: applied to the catalog and forwarded to the hub.' },
  // No tables of its own: stock levels are the catalog's (products), and every report goes to the hub.
  services: ({ clock, services }) => ({ inventory: new InventoryService(clock, services.products) }),
  operations: (services) => inventoryOperations(services.inventory),
};
