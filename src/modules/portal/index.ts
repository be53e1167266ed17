import type { ModuleDefinition } from '../../platform/module-definition.js';
import { portalKeysOperations } from './portal-keys.operations.js';
import { portalOperations } from './portal.operations.js';
import { PortalService } from './portal.service.js';
import { widgetFiles } from './widget/widget.files.js';

declare module '../../platform/module-definition.js' {
  interface Services {
    portal: PortalService;
  }
}

/** The dealer portal: what a dealer's site reads and files with its browser-safe portal key, and the keys' management. */
export const portalModule: ModuleDefinition = {
  name: 'portal',
  tag: {
    name: 'portal',
    description:
      "Dealer portal: a dealer site's browser calls under /api/portal/v1 with a portal key (X-Portal-Key), from the key's " +
      'listed origins only: catalog availability (never quantities, bins or prices), warranty claims filed and looked up ' +
      'by customers; and the operator issuing and revoking those keys.',
  },
  services: ({ services: { products, warranty } }) => ({ portal: new PortalService(products, warranty) }),
  files: widgetFiles,
  operations: (services) => [...portalOperations(services.portal), ...portalKeysOperations(services.portalKeys)],
};
