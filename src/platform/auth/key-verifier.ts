import type { Clock } from '../core/clock.js';
import type { Db } from '../db/schema.js';
import { AppError } from '../core/errors.js';
import { isWellFormedApiKey, sha256Hex } from './api-key.js';
import { findApiKeyByHash } from './api-keys.repository.js';
import { PORTAL_KEY_PREFIX, portalKeyRefused } from './portal-key.js';
import type { KeyChanges } from './key-changes.js';
import { TtlCache } from './ttl-cache.js';

export interface VerifiedKey {
  keyId: string;
  orgId: string;
  scopes: ReadonlySet<string>;
  rateLimitPerMinute: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
}

/** A key found and neither revoked nor expired at `now`. */
function usable(key: VerifiedKey | null, now: number): VerifiedKey {
  if (!key) throw new AppError('unauthorized', 'invalid API key');
  if (key.revokedAt !== null && key.revokedAt <= now) throw new AppError('unauthorized', 'API key has been revoked');
  if (key.expiresAt !== null && key.expiresAt <= now) throw new AppError('unauthorized', 'API key has expired');
  return key;
}

/**
 * Verifies Bearer keys through a short cache: a key revoked or rotated is dropped from it when the change is announced
 * (at once here, through Redis on the other instances), and any change is seen within the TTL regardless.
 */
export class KeyVerifier {
  private readonly cache: TtlCache<VerifiedKey | null>;

  constructor(private readonly db: Db, private readonly clock: Clock, ttlMs: number, changes: KeyChanges) {
    this.cache = new TtlCache(ttlMs);
    changes.onChange((change) => {
      if (change.kind === 'api') this.cache.forget((key) => key?.keyId === change.id);
    });
  }

  /** The key, or a promise of it when it is not cached (a cached key answers in the same tick). */
  verify(authorization: string | undefined): VerifiedKey | Promise<VerifiedKey> {
    if (!authorization) throw new AppError('unauthorized', 'missing API key: send Authorization: Bearer <key>');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) throw new AppError('unauthorized', 'invalid Authorization header: expected Bearer <key>');
    const presented = match[1];
    if (presented.startsWith(PORTAL_KEY_PREFIX)) throw portalKeyRefused();
    if (!isWellFormedApiKey(presented)) throw new AppError('unauthorized', 'invalid API key');
    const hash = sha256Hex(presented);
    const now = this.clock.now().getTime();
    const key = this.cache.get(hash, now, () => this.load(hash));
    return key instanceof Promise ? key.then((k) => usable(k, now)) : usable(key, now);
  }

  private async load(hash: string): Promise<VerifiedKey | null> {
    const row = await findApiKeyByHash(this.db, hash);
    if (!row) return null;
    return {
      keyId: row.id,
      orgId: row.org_id,
      scopes: new Set(row.scopes.split(' ')),
      rateLimitPerMinute: row.rate_limit_per_minute,
      expiresAt: row.expires_at ? Date.parse(row.expires_at) : null,
      revokedAt: row.revoked_at ? Date.parse(row.revoked_at) : null,
    };
  }
}
