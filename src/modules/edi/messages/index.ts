import type { ModuleDefinition } from '../../../platform/module-definition.js';
import { ediPartnersOperations } from '../partners/partners.operations.js';
import { ediOperations } from './messages.operations.js';
import { messagesSettings } from './messages.settings.js';
import * as m0007 from './migrations/0007_edi_message_parent.js';
import * as m0011 from './migrations/0011_edi_messages_raw_chunks.js';
import * as m0021 from './migrations/0021_edi_messages_taking.js';
import * as m0024 from './migrations/0024_edi_lease_owner.js';
import * as m0028 from './migrations/0028_edi_messages_sync_order.js';
import * as m0046 from './migrations/0046_edi_messages_arriving.js';
import { EdiService } from './messages.service.js';
import { LeaseReleases } from './intake/received.js';
// Its table types, merged into the platform's Database: imported here so they are in every program that has the module.
import './messages.tables.js';

declare module '../../../platform/module-definition.js' {
  interface Services {
    edi: EdiService;
  }
}

/** X12 interchanges in (850s become orders, 997/TA1 answers), 855/856/810 out as orders move, and the log of both. */
export const ediMessagesModule: ModuleDefinition = {
  name: 'edi-messages',
  scopes: { 'edi:read': 'read the EDI message log', 'edi:write': 'send X12 interchanges' },
  tag: {
    name: 'edi',
    description:
      'X12 EDI with trading partners: 850 purchase orders in (they become orders, each group answered with a 997), ' +
      '855/856/810 out as orders move, and the log of every interchange received and document sent.',
  },
  services: ({ config, db, clock, cpu, instances, services: { orders, ediPartners, deliveries } }) => {
    const receivePieceBytes = messagesSettings(config.environment).EDI_RECEIVE_PIECE_BYTES;
    const leases = new LeaseReleases(db, instances, clock);
    const edi = new EdiService({ db, clock, cpu, orders, partners: ediPartners, instances, receivePieceBytes, leases }, deliveries);
    // An order's status changes become 855/856/810 documents to its partner, in the change's transaction.
    orders.onStatusChanged(edi.onOrderStatusChanged);
    return { edi };
  },
  // The partners' read operations go under this module's `edi` tag and scopes: one EDI section for clients.
  operations: (services) => [...ediOperations(services.edi), ...ediPartnersOperations(services.ediPartners)],
  migrations: { '0007_edi_message_parent': m0007, '0011_edi_messages_raw_chunks': m0011, '0021_edi_messages_taking': m0021, '0024_edi_lease_owner': m0024, '0028_edi_messages_sync_order': m0028, '0046_edi_messages_arriving': m0046 },
};
