import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation.js';
import * as m0002 from './0002_orders_outbox.js';
import * as m0003 from './0003_warranty_objects.js';
import * as m0004 from './0004_edi.js';

/** Every migration, in order. Add a module's migration here with the next number. */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_orders_outbox': m0002,
  '0003_warranty_objects': m0003,
  '0004_edi': m0004,
};
