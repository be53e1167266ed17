import type { Services } from '../../gateway.js';
import type { GatewayModule } from '../../platform/operations/module.js';
import { ediOperations } from './edi.operations.js';

export const ediModule: GatewayModule<Services> = {
  name: 'edi',
  tag: {
    name: 'edi',
    description:
      'X12 EDI with trading partners: 850 purchase orders in (they become orders, each group answered with a 997), ' +
      '855/856/810 out as orders move, and the log of every interchange received and document sent.',
  },
  operations: (services) => ediOperations(services.edi),
};
