import { z } from 'zod';
import { auditEventSchema, listAuditQuery } from '../../platform/audit/audit.schemas.js';
import type { AuditService } from '../../platform/audit/audit.service.js';
import type { ApiKeysService } from '../../platform/auth/api-keys.service.js';
import { actorOf, DOOR_SCOPE } from '../../platform/auth/scopes.js';
import { defineRead, defineSteps, type Operation, type OperationHints, OPERATOR_NOT_A_TOOL } from '../../platform/operations/operation.js';
import type { OrgsService } from '../../platform/orgs/orgs.service.js';
import { createdKeySchema, createKeyBody, createOrgBody, keyParams, keySchema, listKeysQuery, listOrgsQuery, orgSchema, orgsPage, rotateKeyBody } from './admin.schemas.js';

interface AdminOperationServices {
  orgs: OrgsService;
  apiKeys: ApiKeysService;
  audit: AuditService;
}

/** Every admin operation is the operator's, at the /admin/v1 door, and never an MCP tool. */
const operator = { scope: DOOR_SCOPE.operator, audience: 'operator', absent: { mcp: OPERATOR_NOT_A_TOOL } } as const;
const ISSUES: OperationHints = { readOnly: false, destructive: false, idempotent: false, openWorld: false };

const exampleOrg = { id: 'org_01jx2m8d7k3q9v6t5r4p2n1b0a', slug: 'acme', name: 'Acme Tires', created_at: '2026-06-01T12:00:00.000Z' };
const exampleKey = {
  id: 'key_01jx2m9a4c6e8g0j2k4m6n8p0r',
  org: 'acme',
  name: 'hub sync',
  prefix: 'trk_live_3q9v…',
  scopes: ['orders:read', 'products:read'],
  rate_limit_per_minute: null,
  created_at: '2026-06-01T12:00:00.000Z',
  expires_at: null,
  revoked_at: null,
  rotated_to: null,
  state: 'active',
};
/** What an operator does when a retry finds the key's secret was shown once (the first answer lost). */
const revokeAndIssue = (id: string, again: 'issue' | 'rotate' = 'issue') =>
  `revoke ${id} (POST /admin/v1/keys/${id}/revoke) unless its secret was kept, and ${again === 'issue' ? 'issue a key' : 'rotate the old key'} again with a new Idempotency-Key`;

const exampleCreated = { id: exampleKey.id, key: 'trk_live_3q9v6t5r4p2n1b0a8d7k3q9v6t5r4p2n', org: 'acme', scopes: exampleKey.scopes, expires_at: null };

/** The operator's organisations, API keys and audit trail (/admin/v1), the same as `./bin/gateway orgs|keys|audit`. */
export function adminOperations({ orgs, apiKeys, audit }: AdminOperationServices): Operation[] {
  return [
    defineSteps({
      ...operator,
      name: 'orgs_create',
      method: 'POST',
      path: '/admin/v1/orgs',
      summary: 'Create an organisation',
      description: 'Create an organisation (a tenant) by slug; keys, portal keys and connect tokens are then issued for it by that slug.',
      body: createOrgBody,
      output: z.object({ org: orgSchema }),
      result: 'org',
      status: 201,
      returns: 'the new organisation.',
      errors: { already_exists: 'An organisation with this slug exists.' },
      hints: ISSUES,
      example: { body: { slug: 'acme', name: 'Acme Tires' }, response: { org: exampleOrg } },
      handle: ({ auth, settle }, { body }) => orgs.create(body.slug, body.name, actorOf(auth), settle),
    }),
    defineRead({
      ...operator,
      name: 'orgs_list',
      method: 'GET',
      path: '/admin/v1/orgs',
      summary: 'List organisations',
      description: 'Organisations by slug, one page at a time; pass `next_cursor` back as `cursor` for the next page.',
      query: listOrgsQuery,
      output: orgsPage,
      status: 200,
      returns: 'one page of organisations.',
      errors: {},
      example: { query: { limit: '50' }, response: { orgs: [exampleOrg], next_cursor: null } },
      handle: (_ctx, { query }) => orgs.page(query),
    }),
    defineSteps({
      ...operator,
      name: 'keys_create',
      method: 'POST',
      path: '/admin/v1/keys',
      summary: 'Issue an API key',
      description:
        "Issue an API key (`trk_live_…`) for an organisation with the listed scopes, optionally named, expiring and with its own " +
        'rate limit. The key is shown once, in this answer; only its SHA-256 hash is stored and no list shows it again.',
      body: createKeyBody(apiKeys.scopes),
      output: z.object({ key: createdKeySchema }),
      result: 'key',
      status: 201,
      returns: 'the key, shown this once, with its grants.',
      errors: { not_found: 'No organisation with this slug.', secret_shown_once: 'A retry with the same Idempotency-Key: the secret was shown once, in the first answer (`details.id` names what it created).', },
      hints: ISSUES,
      example: { body: { org: 'acme', scopes: ['orders:read', 'products:read'], name: 'hub sync' }, response: { key: exampleCreated } },
      shownOnce: ({ key }) => ({ created: `API key ${key.id}`, details: { id: key.id }, instead: revokeAndIssue(key.id) }),
      handle: ({ auth, settle }, { body }) =>
        apiKeys.create(
          { orgSlug: body.org, scopes: body.scopes.join(','), name: body.name, expiresIn: body.expires_in, rateLimit: body.rate_limit_per_minute },
          actorOf(auth),
          settle,
        ),
    }),
    defineRead({
      ...operator,
      name: 'keys_list',
      method: 'GET',
      path: '/admin/v1/keys',
      summary: 'List API keys',
      description: "API keys, oldest first, of every organisation or of one (`org`), with their state; never the keys themselves.",
      query: listKeysQuery,
      output: z.object({ keys: z.array(keySchema), next_cursor: z.string().nullable().describe('cursor of the next page; null on the last') }),
      status: 200,
      returns: 'one page of keys.',
      errors: { not_found: 'No organisation with this slug.' },
      example: { query: { org: 'acme' }, response: { keys: [exampleKey], next_cursor: null } },
      handle: (_ctx, { query }) => apiKeys.list(query),
    }),
    defineSteps({
      ...operator,
      name: 'keys_revoke',
      method: 'POST',
      path: '/admin/v1/keys/:id/revoke',
      summary: 'Revoke an API key',
      description: 'Revoke an API key: every instance refuses it within seconds. Revoking a revoked key keeps its first revocation time.',
      params: keyParams,
      output: z.object({ key: z.object({ id: z.string(), revoked_at: z.string().describe('ISO 8601 UTC') }) }),
      result: 'key',
      status: 200,
      returns: 'the key id and when it was revoked.',
      errors: { not_found: 'No key with this id.' },
      hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
      example: { params: { id: exampleKey.id }, response: { key: { id: exampleKey.id, revoked_at: '2026-06-02T09:30:00.000Z' } } },
      handle: ({ auth, settle }, { params }) => apiKeys.revoke(params.id, actorOf(auth), settle),
    }),
    defineSteps({
      ...operator,
      name: 'keys_rotate',
      method: 'POST',
      path: '/admin/v1/keys/:id/rotate',
      summary: 'Rotate an API key',
      description:
        'Issue a replacement key with the same organisation, scopes, name and limits, shown once; the old key keeps working ' +
        'until the grace period (`grace`, default 24h) ends, or its own expiry if sooner. Send `{}` for the default grace.',
      params: keyParams,
      body: rotateKeyBody,
      output: z.object({ key: createdKeySchema.extend({ old_key_expires_at: z.string().describe('when the old key stops working, ISO 8601 UTC') }) }),
      result: 'key',
      status: 201,
      returns: 'the new key, shown this once, and when the old one stops working.',
      errors: { not_found: 'No key with this id.', secret_shown_once: 'A retry with the same Idempotency-Key: the secret was shown once, in the first answer (`details.id` names what it created).', },
      hints: ISSUES,
      example: {
        params: { id: exampleKey.id },
        body: { grace: '24h' },
        response: { key: { ...exampleCreated, id: 'key_01jx2q0b5d7f9h1k3m5p7r9t1v', old_key_expires_at: '2026-06-02T12:00:00.000Z' } },
      },
      shownOnce: ({ key }) => ({ created: `API key ${key.id}, which replaces the rotated one`, details: { id: key.id }, instead: revokeAndIssue(key.id, 'rotate') }),
      handle: ({ auth, settle }, { params, body }) => apiKeys.rotate(params.id, body.grace, actorOf(auth), settle),
    }),
    defineRead({
      ...operator,
      name: 'audit_list',
      method: 'GET',
      path: '/admin/v1/audit',
      summary: 'List the audit trail',
      description:
        'Operator actions, newest first: organisations created; API keys, portal keys and connect tokens issued, revoked or ' +
        'rotated, through this API (`admin:<token id>`, with the request id) or the CLI (`cli`). Rows are never changed or removed.',
      query: listAuditQuery,
      output: z.object({ events: z.array(auditEventSchema), next_cursor: z.string().nullable().describe('cursor of the next page; null on the last') }),
      status: 200,
      returns: 'one page of audit events, newest first.',
      errors: { not_found: 'No organisation with this slug.' },
      example: {
        query: { org: 'acme', limit: '20' },
        response: {
          events: [
            { id: 'aud_01jx2m9a4c6e8g0j2k4m6n8p0s', at: '2026-06-01T12:00:00.000Z', actor: 'admin:5e3b1f0a', action: 'key.created', target: exampleKey.id, org: 'acme', request_id: 'req-7f3a' },
          ],
          next_cursor: null,
        },
      },
      handle: async (_ctx, { query }) => audit.list(query, await orgs.idFilter(query.org)),
    }),
  ];
}
