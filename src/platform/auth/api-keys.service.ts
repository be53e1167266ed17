import { z } from 'zod';
import { type Actor, SYSTEM_ACTOR } from '../core/actor.js';
import { recordAudit } from '../audit/audit.service.js';
import type { Clock } from '../core/clock.js';
import type { BeforeCommit, Db } from '../db/schema.js';
import { invalidInput, notFound } from '../core/errors.js';
import { decodeCursor, page } from '../core/pagination.js';
import { newId } from '../core/ids.js';
import * as orgsRepo from '../orgs/orgs.repository.js';
import { displayPrefix, generateApiKey, sha256Hex } from './api-key.js';
import * as repo from './api-keys.repository.js';
import type { KeyChanges } from './key-changes.js';
import type { ScopeCatalog } from './scopes.js';

export interface CreatedKey {
  id: string;
  key: string;
  org: string;
  scopes: string[];
  expires_at: string | null;
}

interface KeyView {
  id: string;
  org: string;
  name: string | null;
  prefix: string;
  scopes: string[];
  rate_limit_per_minute: number | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  rotated_to: string | null;
  state: 'active' | 'expired' | 'revoked';
}

const DURATION = /^(\d+)([smhdw])$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const MAX_DURATION_MS = 3650 * UNIT_MS.d;

/** `30d`, `12h`, `90m` -> milliseconds. */
function parseDuration(text: string): number {
  const m = DURATION.exec(text.trim());
  if (!m) throw invalidInput(`invalid duration "${text}" (use e.g. 30d, 12h, 90m)`);
  const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  if (ms <= 0) throw invalidInput('duration must be positive');
  // Beyond this a date overflows (a 500 from toISOString); no key needs to live longer.
  if (ms > MAX_DURATION_MS) throw invalidInput('duration must be at most 3650d');
  return ms;
}

interface CreateKeyInput {
  orgSlug: string;
  scopes: string;
  name?: string;
  expiresIn?: string;
  rateLimit?: number;
}

interface ListKeysQuery {
  org?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

const cursorSchema = z.object({ id: z.string() });

function toView(row: repo.ApiKeyListRow, now: string): KeyView {
  return {
    id: row.id,
    org: row.org_slug,
    name: row.name,
    prefix: row.display_prefix,
    scopes: row.scopes.split(' '),
    rate_limit_per_minute: row.rate_limit_per_minute,
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    rotated_to: row.rotated_to,
    state: row.revoked_at ? 'revoked' : row.expires_at !== null && row.expires_at <= now ? 'expired' : 'active',
  };
}

/** Operator-side key management (CLI and /admin/v1/keys): issue (one-time reveal), list, revoke, rotate; each change audited. */
export class ApiKeysService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** The scopes a key can be granted (the operator API's schema lists them). */
    readonly scopes: ScopeCatalog,
    /** Told of each revocation and rotation after it commits, so verifiers drop the key at once. */
    private readonly changes: KeyChanges,
  ) {}

  async create(input: CreateKeyInput, actor: Actor = SYSTEM_ACTOR, beforeCommit?: BeforeCommit<CreatedKey>): Promise<CreatedKey> {
    const org = await orgsRepo.findOrgBySlug(this.db, input.orgSlug);
    if (!org) throw notFound(`org ${input.orgSlug}`);
    const scopes = this.scopes.parse(input.scopes);
    if (input.rateLimit !== undefined && (!Number.isInteger(input.rateLimit) || input.rateLimit < 1)) {
      throw invalidInput('rate limit must be a positive whole number of requests per minute');
    }
    const now = this.clock.now();
    const expiresAt = input.expiresIn ? new Date(now.getTime() + parseDuration(input.expiresIn)).toISOString() : null;
    return this.db.transaction().execute(async (tx) => {
      const created = await this.issue(org.id, org.slug, scopes, input.name ?? null, input.rateLimit ?? null, expiresAt, tx);
      await recordAudit(tx, this.clock, actor, { action: 'key.created', target: created.id, orgId: org.id });
      await beforeCommit?.(tx, created);
      return created;
    });
  }

  /** Keys oldest first, of every org or of one; never the keys themselves. */
  async list(query: ListKeysQuery): Promise<{ keys: KeyView[]; next_cursor: string | null }> {
    const orgId = await orgsRepo.orgIdFilter(this.db, query.org);
    const after = decodeCursor(query.cursor, cursorSchema);
    const rows = await repo.listApiKeys(this.db, { ...(orgId === undefined ? {} : { orgId }), ...(after ? { afterId: after.id } : {}), limit: query.limit + 1 });
    const { items, next_cursor } = page(rows, query.limit, (row) => ({ id: row.id }));
    const now = this.clock.now().toISOString();
    return { keys: items.map((row) => toView(row, now)), next_cursor };
  }

  async revoke(id: string, actor: Actor = SYSTEM_ACTOR, beforeCommit?: BeforeCommit<{ id: string; revoked_at: string }>): Promise<{ id: string; revoked_at: string }> {
    const row = await repo.findApiKeyById(this.db, id);
    if (!row) throw notFound(`key ${id}`);
    const revokedAt = row.revoked_at ?? this.clock.now().toISOString();
    await this.db.transaction().execute(async (tx) => {
      await repo.updateApiKey(tx, id, { revoked_at: revokedAt });
      await recordAudit(tx, this.clock, actor, { action: 'key.revoked', target: id, orgId: row.org_id });
      await beforeCommit?.(tx, { id, revoked_at: revokedAt });
    });
    await this.changes.announce({ kind: 'api', id });
    return { id, revoked_at: revokedAt };
  }

  /** New key with the same grants; the old one keeps working until the grace period ends. */
  async rotate(
    id: string,
    grace = '24h',
    actor: Actor = SYSTEM_ACTOR,
    beforeCommit?: BeforeCommit<CreatedKey & { old_key_expires_at: string }>,
  ): Promise<CreatedKey & { old_key_expires_at: string }> {
    const old = await repo.findApiKeyById(this.db, id);
    if (!old) throw notFound(`key ${id}`);
    if (old.revoked_at) throw invalidInput(`key ${id} is revoked`);
    const org = await orgsRepo.findOrgById(this.db, old.org_id);
    if (!org) throw notFound(`org of key ${id}`);
    const now = this.clock.now();
    const graceEnd = new Date(now.getTime() + parseDuration(grace)).toISOString();
    const oldExpires = old.expires_at !== null && old.expires_at < graceEnd ? old.expires_at : graceEnd;
    if (old.expires_at !== null && old.expires_at <= now.toISOString()) throw invalidInput(`key ${id} has expired`);
    const rotated = await this.db.transaction().execute(async (tx) => {
      const created = await this.issue(org.id, org.slug, old.scopes.split(' '), old.name, old.rate_limit_per_minute, old.expires_at, tx);
      await repo.updateApiKey(tx, id, { expires_at: oldExpires, rotated_to: created.id });
      await recordAudit(tx, this.clock, actor, { action: 'key.rotated', target: id, orgId: org.id });
      const answer = { ...created, old_key_expires_at: oldExpires };
      await beforeCommit?.(tx, answer);
      return answer;
    });
    // The old key's expiry moved to the grace end: a verifier must not keep the one it cached.
    await this.changes.announce({ kind: 'api', id });
    return rotated;
  }

  private async issue(
    orgId: string,
    orgSlug: string,
    scopes: string[],
    name: string | null,
    rateLimit: number | null,
    expiresAt: string | null,
    db: Parameters<typeof repo.insertApiKey>[0] = this.db,
  ): Promise<CreatedKey> {
    const key = generateApiKey();
    const id = newId('key', this.clock.now());
    await repo.insertApiKey(db, {
      id,
      org_id: orgId,
      name,
      key_hash: sha256Hex(key),
      display_prefix: displayPrefix(key),
      scopes: scopes.join(' '),
      rate_limit_per_minute: rateLimit,
      created_at: this.clock.now().toISOString(),
      expires_at: expiresAt,
      revoked_at: null,
      rotated_to: null,
    });
    return { id, key, org: orgSlug, scopes, expires_at: expiresAt };
  }
}
