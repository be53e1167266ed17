import type { Services } from '../../gateway.js';
import type { GatewayModule } from '../../platform/operations/module.js';
import { warrantyOperations } from './warranty.operations.js';

export const warrantyModule: GatewayModule<Services> = {
  name: 'warranty',
  tag: {
    name: 'warranty',
    description:
      'Warranty claims: numbered per organisation (WC-000042, gap-free), moved through submitted, under_review, approved, denied ' +
      'and closed with a status history, and sent to the hub as warranty_claim.created/updated events.',
  },
  operations: (services) => warrantyOperations(services.warranty),
};
