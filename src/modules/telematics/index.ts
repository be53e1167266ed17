import type { ModuleDefinition } from '../../platform/module-definition.js';
import { ConnectTokensService } from './connect-tokens.service.js';
import * as m0008 from './migrations/0008_telematics.js';
// Its table types, merged into the platform's Database: imported here so they are in every program that has the module.
import './telematics.tables.js';

declare module '../../platform/module-definition.js' {
  interface Services {
    connectTokens: ConnectTokensService;
  }
}

/**
 * Telematics: fleets link their equipment's telematics accounts (connect tokens, POST /connect, 21 providers) and the
 * gateway polls them. This first piece issues connect tokens; the connect endpoint, connections and polling follow.
 */
export const telematicsModule: ModuleDefinition = {
  name: 'telematics',
  services: ({ db, clock, services: { orgs } }) => ({ connectTokens: new ConnectTokensService(db, clock, orgs) }),
  migrations: { '0008_telematics': m0008 },
};
