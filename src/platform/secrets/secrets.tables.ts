// The vault's table, added to the platform's Database by declaration merging (see platform/db/schema.ts).

/** One data key of the vault, stored wrapped (AES-256-GCM) under the key-encryption key derived from GATEWAY_SECRET. */
export interface SecretKeysTable {
  /** `sk_…`: the key id every ciphertext made under this key carries. */
  id: string;
  /** `<iv b64url>:<key+tag b64url>`, sealed with the key's id as AAD so a wrapped key cannot be moved to another row. */
  wrapped_key: string;
  /** Which master secret wraps it: the id of the key-encryption key (see deriveKek). */
  kek_id: string;
  /** 1 on the key new values are encrypted under, null on the others (unique: one current key). */
  is_current: number | null;
  created_at: string;
  /** When a rotation replaced it; it still decrypts what is under it. */
  retired_at: string | null;
}

declare module '../db/schema.js' {
  interface Database {
    secret_keys: SecretKeysTable;
  }
}
