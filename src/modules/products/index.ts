import type { Services } from '../../gateway.js';
import type { GatewayModule } from '../../platform/operations/module.js';
import { productsOperations } from './products.operations.js';

export const productsModule: GatewayModule<Services> = {
  name: 'products',
  tag: { name: 'products', description: 'The catalog: products with stock quantity and a stock status derived from per-organisation thresholds.' },
  operations: (services) => productsOperations(services.products),
};
