import type { Executor } from '../../../platform/db/schema.js';
import type { TelematicsConnectTokensTable } from '../telematics.tables.js';

export type ConnectTokenRow = TelematicsConnectTokensTable;

export async function insertConnectToken(db: Executor, row: ConnectTokenRow): Promise<void> {
  await db.insertInto('telematics_connect_tokens').values(row).execute();
}

export function findConnectToken(db: Executor, tokenHash: string): Promise<ConnectTokenRow | undefined> {
  return db.selectFrom('telematics_connect_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/**
 * Marks the token used if it still is usable; true for the one caller that did. The condition is re-checked under the
 * row's write lock (PostgreSQL) or the database's (SQLite), so of any number of racing calls exactly one wins.
 */
export async function consumeConnectToken(db: Executor, tokenHash: string, nowIso: string): Promise<boolean> {
  const result = await db
    .updateTable('telematics_connect_tokens')
    .set({ used_at: nowIso })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', nowIso)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}
