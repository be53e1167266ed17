import type { Clock } from '../core/clock.js';
import type { Db } from '../db/schema.js';
import { AppError } from '../core/errors.js';
import { sha256Hex } from './api-key.js';
import { isWellFormedPortalKey } from './portal-key.js';
import { activeOrigins, findPortalKeyByHash } from './portal-keys.repository.js';
import type { KeyChanges } from './key-changes.js';
import { TtlCache } from './ttl-cache.js';

export interface VerifiedPortalKey {
  keyId: string;
  orgId: string;
  dealer: string;
  origins: ReadonlySet<string>;
  rateLimitPerMinute: number;
  ipRateLimitPerMinute: number;
}

interface Loaded extends VerifiedPortalKey {
  revokedAt: number | null;
}

const invalid = () => new AppError('unauthorized', 'invalid portal key');

/** Verifies X-Portal-Key through a short cache (dropped on announced changes, as KeyVerifier), and knows which origins any active key lists (for preflights). */
export class PortalKeyVerifier {
  private readonly keys: TtlCache<Loaded | null>;
  private readonly origins: TtlCache<ReadonlySet<string>>;

  constructor(private readonly db: Db, private readonly clock: Clock, ttlMs: number, changes: KeyChanges) {
    this.keys = new TtlCache(ttlMs);
    this.origins = new TtlCache(ttlMs, 1);
    // A revoked key's origins may no longer be listed by any active key: both caches drop it.
    changes.onChange((change) => {
      if (change.kind !== 'portal') return;
      this.keys.forget((key) => key?.keyId === change.id);
      this.origins.forget(() => true);
    });
  }

  async verify(header: string | string[] | undefined): Promise<VerifiedPortalKey> {
    if (header === undefined || header === '') throw new AppError('unauthorized', 'missing portal key: send X-Portal-Key: <key>');
    if (typeof header !== 'string' || !isWellFormedPortalKey(header.trim())) throw invalid();
    const hash = sha256Hex(header.trim());
    const now = this.clock.now().getTime();
    const key = await this.keys.get(hash, now, () => this.load(hash));
    if (!key) throw invalid();
    if (key.revokedAt !== null && key.revokedAt <= now) throw new AppError('unauthorized', 'portal key has been revoked');
    return key;
  }

  /** Whether some active portal key lists this (normalised) origin. */
  async isListedAnywhere(origin: string): Promise<boolean> {
    const all = await this.origins.get('all', this.clock.now().getTime(), async () => new Set(await activeOrigins(this.db)));
    return all.has(origin);
  }

  private async load(hash: string): Promise<Loaded | null> {
    const row = await findPortalKeyByHash(this.db, hash);
    if (!row) return null;
    return {
      keyId: row.id,
      orgId: row.org_id,
      dealer: row.dealer,
      origins: new Set(row.allowed_origins.split(' ')),
      rateLimitPerMinute: row.rate_limit_per_minute,
      ipRateLimitPerMinute: row.ip_rate_limit_per_minute,
      revokedAt: row.revoked_at ? Date.parse(row.revoked_at) : null,
    };
  }
}
