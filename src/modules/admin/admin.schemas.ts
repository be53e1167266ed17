import { z } from 'zod';
import { limitParam } from '../../platform/core/pagination.js';
import { freeText } from '../../platform/core/text-rules.js';
import { orgSlug } from '../../platform/core/org-slug.js';
import type { ScopeCatalog } from '../../platform/auth/scopes.js';

const duration = (what: string) =>
  z.string().regex(/^\d{1,6}[smhdw]$/, { error: `${what} must be a duration such as 30d, 12h, 90m (s, m, h, d or w)` });
const cursor = z.string().max(500).optional().describe('`next_cursor` of the previous page.');
const nextCursor = z.string().nullable().describe('cursor of the next page; null on the last');

export const orgSchema = z
  .object({
    id: z.string().describe('org id, `org_` followed by 26 characters'),
    slug: z.string().describe('the slug every other call names the organisation by'),
    name: z.string(),
    created_at: z.string().describe('ISO 8601 UTC'),
  })
  .meta({ id: 'Org', description: 'An organisation: the tenant its keys, data and connections belong to.' });

export const createOrgBody = z.strictObject({
  slug: orgSlug('slug').describe('Lowercase letters, digits and dashes, 1-63 characters, starting with a letter or digit.'),
  name: freeText(200, { min: 1, trim: true, what: 'name' }).optional().describe('Display name, 1-200 characters (default: the slug).'),
});

export const listOrgsQuery = z.strictObject({
  limit: limitParam(500, 100).describe('Organisations per page, 1-500 (default 100).'),
  cursor,
});

export const orgsPage = z.object({ orgs: z.array(orgSchema), next_cursor: nextCursor });

const scopes = z.array(z.string().describe('a scope')).describe('granted scopes');

export const keySchema = z
  .object({
    id: z.string().describe('key id, `key_` followed by 26 characters'),
    org: z.string().describe('the organisation slug'),
    name: z.string().nullable().describe('what the key is for'),
    prefix: z.string().describe('the first characters of the key, to recognise it'),
    scopes,
    rate_limit_per_minute: z.number().int().nullable().describe("requests per minute for the key; null: the gateway's default"),
    created_at: z.string().describe('ISO 8601 UTC'),
    expires_at: z.string().nullable().describe('ISO 8601 UTC; null: never'),
    revoked_at: z.string().nullable().describe('ISO 8601 UTC; null while not revoked'),
    rotated_to: z.string().nullable().describe('the key that replaced this one by rotation'),
    state: z.enum(['active', 'expired', 'revoked']),
  })
  .meta({ id: 'ApiKey', description: 'An API key as the operator sees it: never the key itself, which is shown once.' });

export const createdKeySchema = z
  .object({
    id: z.string(),
    key: z.string().describe('the key itself, shown this once; only its SHA-256 hash is stored'),
    org: z.string().describe('the organisation slug'),
    scopes,
    expires_at: z.string().nullable().describe('ISO 8601 UTC; null: never'),
  })
  .meta({ id: 'CreatedApiKey', description: 'A new API key, revealed this once.' });

/** One scope to grant: `all`, a static scope, or one matching a module's pattern (`objects:<key>:read`), as the catalog lists them. */
function grantableScope(catalog: ScopeCatalog) {
  return z
    .string()
    .superRefine((scope, ctx) => {
      if (scope !== 'all' && !catalog.isKnown(scope)) ctx.addIssue({ code: 'custom', message: `unknown scope: ${scope.slice(0, 100)}`, input: scope });
    })
    .meta({ anyOf: [{ enum: ['all', ...catalog.static] }, ...catalog.patterns.map((p) => ({ pattern: p.pattern.source, description: p.text }))] });
}

export const createKeyBody = (catalog: ScopeCatalog) => z.strictObject({
  org: orgSlug('org').describe('The slug of the organisation the key belongs to.'),
  scopes: z
    .array(grantableScope(catalog))
    .min(1, { error: 'list at least one scope' })
    .max(100)
    .describe('Scopes to grant (`products:read`, `objects:<key>:write`, ...), or `["all"]` for every static scope.'),
  name: freeText(100, { min: 1, trim: true, what: 'name' }).optional().describe('What the key is for, 1-100 characters.'),
  expires_in: duration('expires_in').optional().describe('Lifetime such as `30d` or `12h`; without it the key does not expire.'),
  rate_limit_per_minute: z.number().int().min(1).max(100_000).optional().describe("Requests per minute for this key, 1-100000 (default: the gateway's)."),
});

export const listKeysQuery = z.strictObject({
  org: orgSlug('org').optional().describe("Only this organisation's keys (its slug)."),
  limit: limitParam(500, 100).describe('Keys per page, 1-500 (default 100).'),
  cursor,
});

export const keyParams = z.strictObject({
  id: z.string().regex(/^key_[0-9a-z]{26}$/, { error: 'id must be a key id (`key_` and 26 characters)' }).describe('The key id (`key_…`).'),
});

export const rotateKeyBody = z.strictObject({
  grace: duration('grace').default('24h').describe('How long the old key keeps working, such as `24h` (default) or `7d`.'),
});
