import { z } from 'zod';
import type { Clock } from '../core/clock.js';
import type { Db, Executor } from '../db/schema.js';
import { decodeCursor, page } from '../core/pagination.js';
import { newId } from '../core/ids.js';
import type { Actor } from '../core/actor.js';
import * as repo from './audit.repository.js';
import type { AuditAction, AuditEventView, ListAuditQuery } from './audit.schemas.js';

const cursorSchema = z.object({ seq: z.number().int() });

interface AuditEntry {
  action: AuditAction;
  target: string;
  orgId: string | null;
}

/** Records an operator action on `db`: pass the action's transaction, so the row and the action commit together. */
export async function recordAudit(db: Executor, clock: Clock, actor: Actor, entry: AuditEntry): Promise<void> {
  const at = clock.now();
  await repo.insertAuditEvent(db, {
    id: newId('aud', at),
    at: at.toISOString(),
    actor: actor.who,
    action: entry.action,
    target: entry.target,
    org_id: entry.orgId,
    request_id: actor.requestId,
  });
}

/** Reads the append-only audit trail (`audit list`, GET /admin/v1/audit); nothing here changes or removes a row. */
export class AuditService {
  constructor(private readonly db: Db) {}

  /** `orgId`: the org `query.org` names, looked up by the caller (orgs sit above the audit trail they write to). */
  async list(query: ListAuditQuery, orgId: string | undefined): Promise<{ events: AuditEventView[]; next_cursor: string | null }> {
    const before = decodeCursor(query.cursor, cursorSchema);
    const rows = await repo.listAuditEvents(this.db, { ...(orgId === undefined ? {} : { orgId }), ...(before ? { beforeSeq: before.seq } : {}), limit: query.limit + 1 });
    const { items, next_cursor } = page(rows, query.limit, (row) => ({ seq: row.seq }));
    return {
      events: items.map((row) => ({
        id: row.id,
        at: row.at,
        actor: row.actor,
        action: row.action as AuditAction,
        target: row.target,
        org: row.org_slug,
        request_id: row.request_id,
      })),
      next_cursor,
    };
  }
}
