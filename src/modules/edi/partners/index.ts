import type { ModuleDefinition } from '../../../platform/module-definition.js';
import * as m0005 from './migrations/0005_edi_outbound_profile.js';
import * as m0006 from './migrations/0006_edi_interchange_ids.js';
import { EdiPartnersService } from './partners.service.js';
// Its table types, merged into the platform's Database: imported here so they are in every program that has the module.
import './partners.tables.js';

declare module '../../../platform/module-definition.js' {
  interface Services {
    ediPartners: EdiPartnersService;
  }
}

/**
 * Trading partners and the org's own interchange ids: who may send us X12, what their guides ask of the documents we
 * send, and the control-number counter. Operator-managed (CLI); EDI messages read them.
 */
export const ediPartnersModule: ModuleDefinition = {
  name: 'edi-partners',
  services: ({ db, clock, services: { orgs } }) => ({ ediPartners: new EdiPartnersService(db, clock, orgs) }),
  migrations: { '0005_edi_outbound_profile': m0005, '0006_edi_interchange_ids': m0006 },
};
