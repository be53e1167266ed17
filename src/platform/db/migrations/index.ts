import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation.js';
import * as m0002 from './0002_orders_outbox.js';
import * as m0003 from './0003_warranty_objects.js';
import * as m0004 from './0004_edi.js';
import * as m0009 from './0009_secret_keys.js';
import * as m0014 from './0014_portal_keys.js';
import * as m0016 from './0016_audit_events.js';
import * as m0020 from './0020_api_keys_by_org.js';
import * as m0023 from './0023_instance_owners.js';
import * as m0032 from './0032_operator_idempotency.js';

/**
 * The platform's migrations. 0001-0004 are the baseline: every table created before modules declared their own
 * migrations, platform and module tables alike; deployed databases ran them under these names, and Kysely refuses a
 * history that changes, so they stay as they are. Later platform tables (0009 on) are added here, numbered above
 * every migration that exists; a module's tables come in its own `migrations` (src/modules/<m>/index.ts).
 */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_orders_outbox': m0002,
  '0003_warranty_objects': m0003,
  '0004_edi': m0004,
  '0009_secret_keys': m0009,
  '0014_portal_keys': m0014,
  '0016_audit_events': m0016,
  '0020_api_keys_by_org': m0020,
  '0023_instance_owners': m0023,
  '0032_operator_idempotency': m0032,
};
