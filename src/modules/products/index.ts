import type { ModuleDefinition } from '../../platform/module-definition.js';
import * as m0025 from './migrations/0025_products_sync_order.js';
import * as m0036 from './migrations/0036_products_tire_size.js';
import * as m0040 from './migrations/0040_products_load_speed.js';
import { productsOperations } from './products.operations.js';
import { ProductsService } from './products.service.js';
// Its table types, merged into the platform's Database: imported here so they are in every program that has the module.
import './products.tables.js';
import { stockSettings } from './stock-status.js';

declare module '../../platform/module-definition.js' {
  interface Services {
    products: ProductsService;
  }
}

export const productsModule: ModuleDefinition = {
  name: 'products',
  scopes: { 'products:read': 'read the catalog', 'products:write': 'create and update products' },
  tag: { name: 'products', description: 'The catalog: products with stock quantity and a stock status derived from per-organisation thresholds.' },
  settings: stockSettings,
  services: ({ clock, services: { orgs } }) => {
    const products = new ProductsService(clock, orgs);
    orgs.onSettingsChanged(stockSettings, products.onSettingsChanged);
    return { products };
  },
  migrations: { '0025_products_sync_order': m0025, '0036_products_tire_size': m0036, '0040_products_load_speed': m0040 },
  operations: (services) => productsOperations(services.products),
};
