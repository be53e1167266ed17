import { z } from 'zod';
import { isExactOrigin } from '../../config.js';
import { limitParam } from '../core/pagination.js';
import { freeText, identifier } from '../core/text-rules.js';
import { PORTAL_DEFAULT_IP_RATE_LIMIT, PORTAL_DEFAULT_RATE_LIMIT } from './portal-key.js';
import { orgSlug } from '../core/org-slug.js';

const perMinute = (what: string) =>
  z.number().int({ error: `${what} must be a whole number` }).min(1, { error: `${what} must be at least 1` }).max(100_000, { error: `${what} must be at most 100000` });

const origin = z
  .string()
  .max(255, { error: 'an origin is at most 255 characters' })
  .refine(isExactOrigin, { error: (issue) => `${String(issue.input)} is not an exact origin: scheme://host[:port], no wildcard, path or credentials` });

export const createPortalKeyInput = z.strictObject({
  org: orgSlug('org').describe('The slug of the organisation whose catalog and claims the key reaches.'),
  dealer: freeText(200, { min: 1, trim: true, what: 'dealer' }).describe("The dealer the key is for, 1-200 characters: recorded on every claim it files."),
  origins: z
    .array(origin)
    .min(1, { error: 'list at least one origin' })
    .max(20, { error: 'at most 20 origins' })
    .describe('The browser origins that may use the key, exact `scheme://host[:port]` (no wildcard, no path), 1-20 of them.'),
  rate_limit_per_minute: perMinute('rate_limit_per_minute')
    .optional()
    .describe(`Requests per minute for the key, all visitors together, 1-100000 (default ${PORTAL_DEFAULT_RATE_LIMIT}).`),
  ip_rate_limit_per_minute: perMinute('ip_rate_limit_per_minute')
    .optional()
    .describe(`Requests per minute per client IP on this key, 1-100000 (default ${PORTAL_DEFAULT_IP_RATE_LIMIT}).`),
});

export const portalKeySchema = z
  .object({
    id: z.string().describe('portal key id, `pkey_` followed by 26 characters'),
    org: z.string().describe('the organisation slug'),
    dealer: z.string(),
    prefix: z.string().describe('the first characters of the key, to recognise it'),
    origins: z.array(z.string()).describe('the browser origins that may use it'),
    rate_limit_per_minute: z.number().int().describe('requests per minute for the key'),
    ip_rate_limit_per_minute: z.number().int().describe('requests per minute per client IP'),
    state: z.enum(['active', 'revoked']),
    created_at: z.string().describe('ISO 8601 UTC'),
    revoked_at: z.string().nullable().describe('ISO 8601 UTC; null while active'),
  })
  .meta({ id: 'PortalKey', description: 'A portal key as the operator sees it: never the key itself, which is shown once.' });
export type PortalKeyView = z.infer<typeof portalKeySchema>;

export const listPortalKeysQuery = z.strictObject({
  org: orgSlug('org').optional().describe("Only this organisation's keys (its slug)."),
  limit: limitParam(500, 100).describe('Keys per page, 1-500 (default 100).'),
  cursor: z.string().max(500).optional().describe('`next_cursor` of the previous page.'),
});
export type ListPortalKeysQuery = z.infer<typeof listPortalKeysQuery>;

export const portalKeyParams = z.strictObject({
  id: identifier(100, 'id').describe('The portal key id (`pkey_…`).'),
});
