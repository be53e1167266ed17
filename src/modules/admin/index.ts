import type { ModuleDefinition } from '../../platform/module-definition.js';
import { adminOperations } from './admin.operations.js';

/** The operator API over the platform's orgs, API keys and audit trail: what the CLI does, for the hub to call remotely. */
export const adminModule: ModuleDefinition = {
  name: 'admin',
  tag: {
    name: 'admin',
    description:
      'Operator API under /admin/v1, with GATEWAY_ADMIN_TOKEN (absent while no token is set): organisations, API keys ' +
      '(one-time reveal, revoke, rotate with grace) and the append-only audit trail of every operator action.',
  },
  operations: (services) => adminOperations(services),
};
