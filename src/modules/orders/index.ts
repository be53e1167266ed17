import type { ModuleDefinition } from '../../platform/module-definition.js';
import * as m0026 from './migrations/0026_orders_sync_order.js';
import * as m0030 from './migrations/0030_orders_currency.js';
import { orderSettings } from './order-currency.js';
import { ordersOperations } from './orders.operations.js';
import { OrdersService } from './orders.service.js';
// Its table types, merged into the platform's Database: imported here so they are in every program that has the module.
import './orders.tables.js';

declare module '../../platform/module-definition.js' {
  interface Services {
    orders: OrdersService;
  }
}

export const ordersModule: ModuleDefinition = {
  name: 'orders',
  scopes: { 'orders:read': 'read orders', 'orders:write': 'create orders and move their status' },
  tag: {
    name: 'orders',
    description: 'Sales orders: lines priced against the catalog, a status workflow, and every creation and change forwarded to the hub.',
  },
  migrations: { '0026_orders_sync_order': m0026, '0030_orders_currency': m0030 },
  settings: orderSettings,
  services: ({ clock, services }) => ({ orders: new OrdersService(clock, services.products, services.deliveries, services.orgs) }),
  operations: (services) => ordersOperations(services.orders),
};
