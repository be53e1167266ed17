import { z } from 'zod';
import { type Actor, SYSTEM_ACTOR } from '../core/actor.js';
import { recordAudit } from '../audit/audit.service.js';
import type { Clock } from '../core/clock.js';
import type { BeforeCommit, Db } from '../db/schema.js';
import { notFound } from '../core/errors.js';
import { decodeCursor, page } from '../core/pagination.js';
import { newId } from '../core/ids.js';
import { invalidFromIssues } from '../core/issues.js';
import * as orgsRepo from '../orgs/orgs.repository.js';
import { sha256Hex } from './api-key.js';
import { generatePortalKey, PORTAL_DEFAULT_IP_RATE_LIMIT, PORTAL_DEFAULT_RATE_LIMIT, portalDisplayPrefix } from './portal-key.js';
import { createPortalKeyInput, type ListPortalKeysQuery, type PortalKeyView } from './portal-key.schemas.js';
import type { KeyChanges } from './key-changes.js';
import * as repo from './portal-keys.repository.js';

export type CreatedPortalKey = PortalKeyView & { key: string };

const cursorSchema = z.object({ id: z.string() });

function toView(row: repo.PortalKeyListRow): PortalKeyView {
  return {
    id: row.id,
    org: row.org_slug,
    dealer: row.dealer,
    prefix: row.display_prefix,
    origins: row.allowed_origins.split(' '),
    rate_limit_per_minute: row.rate_limit_per_minute,
    ip_rate_limit_per_minute: row.ip_rate_limit_per_minute,
    state: row.revoked_at === null ? 'active' : 'revoked',
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  };
}

/** Operator-side portal key management (CLI and /admin/v1/portal-keys): issue with a one-time reveal, list, revoke. */
export class PortalKeysService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Told of each revocation after it commits, so verifiers drop the key at once. */
    private readonly changes: KeyChanges,
  ) {}

  async create(input: z.input<typeof createPortalKeyInput>, actor: Actor = SYSTEM_ACTOR, beforeCommit?: BeforeCommit<CreatedPortalKey>): Promise<CreatedPortalKey> {
    const parsed = createPortalKeyInput.safeParse(input);
    if (!parsed.success) throw invalidFromIssues(parsed.error.issues, 'portal key');
    const { org: slug, dealer, origins, rate_limit_per_minute, ip_rate_limit_per_minute } = parsed.data;
    const org = await orgsRepo.findOrgBySlug(this.db, slug);
    if (!org) throw notFound(`org ${slug}`);
    const key = generatePortalKey();
    const now = this.clock.now();
    const row: repo.PortalKeyRow = {
      id: newId('pkey', now),
      org_id: org.id,
      dealer,
      key_hash: sha256Hex(key),
      display_prefix: portalDisplayPrefix(key),
      // As a browser sends them in Origin (lower-case, no trailing slash), once each.
      allowed_origins: [...new Set(origins.map((o) => new URL(o).origin))].join(' '),
      rate_limit_per_minute: rate_limit_per_minute ?? PORTAL_DEFAULT_RATE_LIMIT,
      ip_rate_limit_per_minute: ip_rate_limit_per_minute ?? PORTAL_DEFAULT_IP_RATE_LIMIT,
      created_at: now.toISOString(),
      revoked_at: null,
    };
    const created = { ...toView({ ...row, org_slug: org.slug }), key };
    await this.db.transaction().execute(async (tx) => {
      await repo.insertPortalKey(tx, row);
      await recordAudit(tx, this.clock, actor, { action: 'portal_key.created', target: row.id, orgId: org.id });
      await beforeCommit?.(tx, created);
    });
    return created;
  }

  async list(query: ListPortalKeysQuery): Promise<{ portal_keys: PortalKeyView[]; next_cursor: string | null }> {
    const orgId = await orgsRepo.orgIdFilter(this.db, query.org);
    const after = decodeCursor(query.cursor, cursorSchema);
    const rows = await repo.listPortalKeys(this.db, {
      ...(orgId === undefined ? {} : { orgId }),
      ...(after ? { afterId: after.id } : {}),
      limit: query.limit + 1,
    });
    const { items, next_cursor } = page(rows, query.limit, (row) => ({ id: row.id }));
    return { portal_keys: items.map(toView), next_cursor };
  }

  /** Takes effect at once here and, through Redis, on the other instances (within the key cache's TTL without it); revoking twice keeps the first time. */
  async revoke(id: string, actor: Actor = SYSTEM_ACTOR, beforeCommit?: BeforeCommit<PortalKeyView>): Promise<PortalKeyView> {
    const revoked = await this.db.transaction().execute(async (tx) => {
      await repo.revokePortalKey(tx, id, this.clock.now().toISOString());
      const row = await repo.findPortalKeyById(tx, id);
      if (!row) throw notFound(`portal key ${id}`);
      await recordAudit(tx, this.clock, actor, { action: 'portal_key.revoked', target: id, orgId: row.org_id });
      const view = toView(row);
      await beforeCommit?.(tx, view);
      return view;
    });
    await this.changes.announce({ kind: 'portal', id });
    return revoked;
  }
}
