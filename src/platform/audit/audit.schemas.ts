import { z } from 'zod';
import { limitParam } from '../core/pagination.js';
import { orgSlug } from '../core/org-slug.js';

const AUDIT_ACTIONS = [
  'org.created',
  'key.created',
  'key.revoked',
  'key.rotated',
  'portal_key.created',
  'portal_key.revoked',
  'connect_token.issued',
  'connection.cursors_reset',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const auditEventSchema = z
  .object({
    id: z.string().describe('audit event id, `aud_` followed by 26 characters'),
    at: z.string().describe('ISO 8601 UTC'),
    actor: z.string().describe('who: `admin:<first 8 hex of the admin token\'s SHA-256>`, `cli`, or `system` (in-process seeding)'),
    action: z.enum(AUDIT_ACTIONS),
    target: z.string().describe('what was acted on: the org, key or portal key id; for a connect token, the connection it reconnects or the org; for a cursors reset, the connection'),
    org: z.string().nullable().describe('the organisation slug'),
    request_id: z.string().nullable().describe('the X-Request-Id of the API call; null from the CLI'),
  })
  .meta({ id: 'AuditEvent', description: 'One operator action, as recorded: never updated or deleted.' });
export type AuditEventView = z.infer<typeof auditEventSchema>;

export const listAuditQuery = z.strictObject({
  org: orgSlug('org').optional().describe("Only this organisation's events (its slug)."),
  limit: limitParam(500, 100).describe('Events per page, 1-500 (default 100).'),
  cursor: z.string().max(500).optional().describe('`next_cursor` of the previous page.'),
});
export type ListAuditQuery = z.infer<typeof listAuditQuery>;
