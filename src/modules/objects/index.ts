import { OBJECT_SCOPE } from './objects.schemas.js';
import type { ModuleDefinition } from '../../platform/module-definition.js';
import { objectsOperations } from './objects.operations.js';
import { ObjectsService } from './objects.service.js';
import { slicePacing } from '../../platform/db/slice-pacer.js';
import * as m0022 from './migrations/0022_objects_rewrite.js';
import * as m0037 from './migrations/0037_objects_sync_order.js';
// Its table types, merged into the platform's Database: imported here so they are in every program that has the module.
import './objects.tables.js';

declare module '../../platform/module-definition.js' {
  interface Services {
    objects: ObjectsService;
  }
}

export const objectsModule: ModuleDefinition = {
  name: 'objects',
  // Each object names its own scopes: granted by name, checked per object by the service.
  scopePatterns: [{ pattern: OBJECT_SCOPE, text: 'objects:<key>:read|write', description: "read or write one custom object's rows" }],
  tag: {
    name: 'objects',
    description:
      'Operator-defined objects (fitments, price lists, ...): per-organisation tables defined at run time, each with its own ' +
      '`objects:<key>:read` and `objects:<key>:write` scopes. List them first to learn their fields and row schema.',
  },
  services: ({ db, dialect, clock, config, services }) => ({ objects: new ObjectsService(db, clock, services.orgs, slicePacing(dialect, config.SQLITE_SLICE_TARGET_MS)) }),
  operations: (services) => objectsOperations(services.objects),
  migrations: { '0022_objects_rewrite': m0022, '0037_objects_sync_order': m0037 },
};
