import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation.js';
import * as m0002 from './0002_orders_outbox.js';
import * as m0003 from './0003_warranty_objects.js';
import * as m0004 from './0004_edi.js';

/**
 * The baseline: every table created before modules declared their own migrations, platform and module tables alike.
 * Deployed databases ran these under these names, and Kysely refuses a history that changes, so they stay here as
 * they are. A module's new tables come in its own `migrations` (src/modules/<m>/index.ts), numbered from 0005 on.
 */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_orders_outbox': m0002,
  '0003_warranty_objects': m0003,
  '0004_edi': m0004,
};
