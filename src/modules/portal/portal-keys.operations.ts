import { z } from 'zod';
import { createPortalKeyInput, listPortalKeysQuery, portalKeyParams, portalKeySchema } from '../../platform/auth/portal-key.schemas.js';
import type { PortalKeysService } from '../../platform/auth/portal-keys.service.js';
import { actorOf, DOOR_SCOPE } from '../../platform/auth/scopes.js';
import { defineRead, defineSteps, type Operation, OPERATOR_NOT_A_TOOL } from '../../platform/operations/operation.js';

const exampleKey = {
  id: 'pkey_01jx2m8d7k3q9v6t5r4p2n1b0a',
  org: 'acme',
  dealer: 'Springfield Tire & Auto',
  prefix: 'pk_portal_dealer_3q9v…',
  origins: ['https://springfieldtire.example', 'https://www.springfieldtire.example'],
  rate_limit_per_minute: 1200,
  ip_rate_limit_per_minute: 60,
  state: 'active',
  created_at: '2026-06-01T12:00:00.000Z',
  revoked_at: null,
};

/** The operator's portal key operations (/admin/v1/portal-keys), the same as `./bin/gateway portal-keys`. */
export function portalKeysOperations(portalKeys: PortalKeysService): Operation[] {
  return [
    defineSteps({
      name: 'portal_keys_create',
      method: 'POST',
      path: '/admin/v1/portal-keys',
      scope: DOOR_SCOPE.operator,
      audience: 'operator',
      summary: 'Issue a portal key',
      description:
        "Issue a browser-safe portal key (`pk_portal_dealer_…`) for a dealer's site: it reads the organisation's catalog " +
        'availability and files and looks up warranty claims under /api/portal/v1, from the listed origins only. The key is ' +
        'shown once; only its SHA-256 hash is stored.',
      body: createPortalKeyInput,
      output: z.object({ portal_key: portalKeySchema.extend({ key: z.string().describe('the key itself, shown this once') }) }),
      result: 'portal_key',
      status: 201,
      returns: 'the key, shown this once, with its settings.',
      errors: {
        not_found: 'No organisation with this slug.',
        secret_shown_once: 'A retry with the same Idempotency-Key: the key was shown once, in the first answer (`details.id` names the portal key).',
      },
      hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
      absent: { mcp: OPERATOR_NOT_A_TOOL },
      example: {
        body: { org: 'acme', dealer: 'Springfield Tire & Auto', origins: ['https://springfieldtire.example', 'https://www.springfieldtire.example'] },
        response: { portal_key: { ...exampleKey, key: 'pk_portal_dealer_3q9v6t5r4p2n1b0a8d7k3q9v6t5r4p2n1b' } },
      },
      shownOnce: ({ portal_key: { id } }) => ({
        created: `portal key ${id}`,
        details: { id },
        instead: `revoke ${id} (POST /admin/v1/portal-keys/${id}/revoke) unless the key was kept, and issue another with a new Idempotency-Key`,
      }),
      handle: ({ auth, settle }, { body }) => portalKeys.create(body, actorOf(auth), settle),
    }),
    defineRead({
      name: 'portal_keys_list',
      method: 'GET',
      path: '/admin/v1/portal-keys',
      scope: DOOR_SCOPE.operator,
      audience: 'operator',
      summary: 'List portal keys',
      description: "Portal keys, oldest first, of every organisation or of one (`org`), active and revoked; never the keys themselves.",
      query: listPortalKeysQuery,
      output: z.object({ portal_keys: z.array(portalKeySchema), next_cursor: z.string().nullable().describe('cursor of the next page; null on the last') }),
      status: 200,
      returns: 'one page of portal keys.',
      errors: { not_found: 'No organisation with this slug.' },
      absent: { mcp: OPERATOR_NOT_A_TOOL },
      example: { query: { org: 'acme' }, response: { portal_keys: [exampleKey], next_cursor: null } },
      handle: (_ctx, { query }) => portalKeys.list(query),
    }),
    defineSteps({
      name: 'portal_keys_revoke',
      method: 'POST',
      path: '/admin/v1/portal-keys/:id/revoke',
      scope: DOOR_SCOPE.operator,
      audience: 'operator',
      summary: 'Revoke a portal key',
      description: 'Revoke a portal key: every instance refuses it within seconds. Revoking a revoked key changes nothing.',
      params: portalKeyParams,
      output: z.object({ portal_key: portalKeySchema }),
      result: 'portal_key',
      status: 200,
      returns: 'the key as revoked.',
      errors: { not_found: 'No portal key with this id.' },
      hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
      absent: { mcp: OPERATOR_NOT_A_TOOL },
      example: { params: { id: exampleKey.id }, response: { portal_key: { ...exampleKey, state: 'revoked', revoked_at: '2026-06-02T09:30:00.000Z' } } },
      handle: ({ auth, settle }, { params }) => portalKeys.revoke(params.id, actorOf(auth), settle),
    }),
  ];
}
