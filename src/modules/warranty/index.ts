import type { ModuleDefinition } from '../../platform/module-definition.js';
import * as m0015 from './migrations/0015_warranty_portal.js';
import * as m0027 from './migrations/0027_warranty_sync_order.js';
import { warrantyOperations } from './warranty.operations.js';
import { WarrantyService } from './warranty.service.js';
// Its table types, merged into the platform's Database: imported here so they are in every program that has the module.
import './warranty.tables.js';

declare module '../../platform/module-definition.js' {
  interface Services {
    warranty: WarrantyService;
  }
}

export const warrantyModule: ModuleDefinition = {
  name: 'warranty',
  scopes: { 'warranty:read': 'read warranty claims', 'warranty:write': 'file and move warranty claims' },
  tag: {
    name: 'warranty',
    description:
      'Warranty claims: numbered per organisation (WC-000042, gap-free), moved through submitted, under_review, approved, denied ' +
      'and closed with a status history, and sent to the hub as warranty_claim.created/updated events.',
  },
  services: ({ clock, services }) => ({ warranty: new WarrantyService(clock, services.products) }),
  operations: (services) => warrantyOperations(services.warranty),
  migrations: { '0015_warranty_portal': m0015, '0027_warranty_sync_order': m0027 },
};
