import type { ModuleDefinition } from '../platform/module-definition.js';
import { adminModule } from './admin/index.js';
import { ediMessagesModule } from './edi/messages/index.js';
import { ediPartnersModule } from './edi/partners/index.js';
import { inventoryModule } from './inventory/index.js';
import { objectsModule } from './objects/index.js';
import { ordersModule } from './orders/index.js';
import { portalModule } from './portal/index.js';
import { productsModule } from './products/index.js';
import { telematicsModule } from './telematics/index.js';
import { warrantyModule } from './warranty/index.js';
import { webhooksModule } from './webhooks/index.js';

/**
 * Every resource module the gateway serves: the one list to edit when adding a module. Order matters twice: operations
 * are listed in it, and a module's services are built after those of the modules before it (orders uses products).
 */
export const MODULES: readonly ModuleDefinition[] = [productsModule, ordersModule, inventoryModule, warrantyModule, objectsModule, ediPartnersModule, ediMessagesModule, telematicsModule, webhooksModule, portalModule, adminModule];
