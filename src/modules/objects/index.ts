import type { Services } from '../../gateway.js';
import type { GatewayModule } from '../../platform/operations/module.js';
import { objectsOperations } from './objects.operations.js';

export const objectsModule: GatewayModule<Services> = {
  name: 'objects',
  tag: {
    name: 'objects',
    description:
      'Operator-defined objects (fitments, price lists, ...): per-organisation tables defined at run time, each with its own ' +
      '`objects:<key>:read` and `objects:<key>:write` scopes. List them first to learn their fields and row schema.',
  },
  operations: (services) => objectsOperations(services.objects),
};
