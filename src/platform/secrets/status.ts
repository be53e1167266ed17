import type { Executor } from '../db/schema.js';
import { countUnder } from './columns.js';
import { listKeys } from './secret-keys.repository.js';
import type { EncryptedColumn } from './columns.js';

interface SecretKeyStatus {
  id: string;
  /** The key-encryption key wrapping it: one id on every key once a change of GATEWAY_SECRET is complete. */
  kek_id: string;
  current: boolean;
  created_at: string;
  retired_at: string | null;
  /** How many values of the declared columns are under it. */
  values: number;
}

/** The vault's data keys, oldest first, with which is current and how many values each still holds. */
export async function secretsStatus(db: Executor, columns: readonly EncryptedColumn[]): Promise<{ current_key_id: string | null; keys: SecretKeyStatus[] }> {
  const keys: SecretKeyStatus[] = [];
  for (const row of await listKeys(db)) {
    let values = 0;
    for (const column of columns) values += await countUnder(db, column, row.id);
    keys.push({ id: row.id, kek_id: row.kek_id, current: row.is_current === 1, created_at: row.created_at, retired_at: row.retired_at, values });
  }
  return { current_key_id: keys.find((k) => k.current)?.id ?? null, keys };
}
