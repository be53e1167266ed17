import type { ModuleDefinition } from '../../platform/module-definition.js';
import { ediOperations } from './edi.operations.js';
import * as m0005 from './migrations/0005_edi_outbound_profile.js';
import * as m0006 from './migrations/0006_edi_interchange_ids.js';
import * as m0007 from './migrations/0007_edi_message_parent.js';
import { EdiService } from './edi.service.js';
import { EdiPartnersService } from './partners.service.js';
// Its table types, merged into the platform's Database: imported here so they are in every program that has the module.
import './edi.tables.js';

declare module '../../platform/module-definition.js' {
  interface Services {
    edi: EdiService;
    ediPartners: EdiPartnersService;
  }
}

export const ediModule: ModuleDefinition = {
  name: 'edi',
  tag: {
    name: 'edi',
    description:
      'X12 EDI with trading partners: 850 purchase orders in (they become orders, each group answered with a 997), ' +
      '855/856/810 out as orders move, and the log of every interchange received and document sent.',
  },
  services: ({ db, clock, services: { orgs, products, orders, deliveries } }) => {
    const edi = new EdiService(db, clock, products, orders, deliveries);
    // An order's status changes become 855/856/810 documents to its partner, in the change's transaction.
    orders.onStatusChanged(edi.onOrderStatusChanged);
    return { edi, ediPartners: new EdiPartnersService(db, clock, orgs) };
  },
  operations: (services) => ediOperations(services.edi),
  migrations: { '0005_edi_outbound_profile': m0005, '0006_edi_interchange_ids': m0006, '0007_edi_message_parent': m0007 },
};
