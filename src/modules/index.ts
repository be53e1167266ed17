import type { Services } from '../gateway.js';
import type { GatewayModule } from '../platform/operations/module.js';
import { ediModule } from './edi/index.js';
import { inventoryModule } from './inventory/index.js';
import { objectsModule } from './objects/index.js';
import { ordersModule } from './orders/index.js';
import { productsModule } from './products/index.js';
import { warrantyModule } from './warranty/index.js';

/** Every resource module the gateway serves, in the order their operations are listed. */
export const MODULES: readonly GatewayModule<Services>[] = [productsModule, ordersModule, inventoryModule, warrantyModule, objectsModule, ediModule];
