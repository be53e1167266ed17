import type { Executor } from '../../platform/db/schema.js';
import type { TelematicsConnectTokensTable } from './telematics.tables.js';

export type ConnectTokenRow = TelematicsConnectTokensTable;

export async function insertConnectToken(db: Executor, row: ConnectTokenRow): Promise<void> {
  await db.insertInto('telematics_connect_tokens').values(row).execute();
}
