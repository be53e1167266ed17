import type { Services } from '../../gateway.js';
import type { GatewayModule } from '../../platform/operations/module.js';
import { ordersOperations } from './orders.operations.js';

export const ordersModule: GatewayModule<Services> = {
  name: 'orders',
  tag: {
    name: 'orders',
    description: 'Sales orders: lines priced against the catalog, a status workflow, and every creation and change forwarded to the hub.',
  },
  operations: (services) => ordersOperations(services.orders),
};
