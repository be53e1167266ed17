import type { Clock } from '../clock.js';
import type { Db } from '../db/schema.js';
import { AppError } from '../http/errors.js';
import { isWellFormedApiKey, sha256Hex } from './api-key.js';
import { findApiKeyByHash } from './api-keys.repository.js';

export interface VerifiedKey {
  keyId: string;
  orgId: string;
  scopes: ReadonlySet<string>;
  rateLimitPerMinute: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
}

interface CacheEntry {
  key: VerifiedKey | null;
  fetchedAt: number;
}

const MAX_ENTRIES = 10_000;

/**
 * Verifies Bearer keys with a short cache: no database round trip per request, and a revocation made by
 * any instance (or the CLI) takes effect here once the entry is older than the TTL.
 */
export class KeyVerifier {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(private readonly db: Db, private readonly clock: Clock, private readonly ttlMs: number) {}

  async verify(authorization: string | undefined): Promise<VerifiedKey> {
    if (!authorization) throw new AppError('unauthorized', 'missing API key: send Authorization: Bearer <key>');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) throw new AppError('unauthorized', 'invalid Authorization header: expected Bearer <key>');
    const presented = match[1];
    if (!isWellFormedApiKey(presented)) throw new AppError('unauthorized', 'invalid API key');
    const hash = sha256Hex(presented);
    const now = this.clock.now().getTime();
    let entry = this.cache.get(hash);
    if (!entry || now - entry.fetchedAt >= this.ttlMs || now < entry.fetchedAt) {
      entry = { key: await this.load(hash), fetchedAt: now };
      this.remember(hash, entry);
    }
    const key = entry.key;
    if (!key) throw new AppError('unauthorized', 'invalid API key');
    if (key.revokedAt !== null && key.revokedAt <= now) throw new AppError('unauthorized', 'API key has been revoked');
    if (key.expiresAt !== null && key.expiresAt <= now) throw new AppError('unauthorized', 'API key has expired');
    return key;
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

  private remember(hash: string, entry: CacheEntry): void {
    this.cache.delete(hash);
    if (this.cache.size >= MAX_ENTRIES) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(hash, entry);
  }
}
