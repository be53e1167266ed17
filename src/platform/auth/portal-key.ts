import { randomBytes } from 'node:crypto';
import { AppError } from '../core/errors.js';

export const PORTAL_KEY_PREFIX = 'pk_portal_dealer_';
const PORTAL_KEY_SHAPE = /^pk_portal_dealer_[A-Za-z0-9_-]{32}$/;

/** Where portal keys are taken: the one path prefix of the portal door. */
export const PORTAL_PATH_PREFIX = '/api/portal/v1';

/** Portal-key defaults, per minute: a dealer site's visitors share the key; one visitor's browser is one client IP. */
export const PORTAL_DEFAULT_RATE_LIMIT = 1200;
export const PORTAL_DEFAULT_IP_RATE_LIMIT = 60;

export function generatePortalKey(): string {
  return PORTAL_KEY_PREFIX + randomBytes(24).toString('base64url');
}

export function isWellFormedPortalKey(key: string): boolean {
  return PORTAL_KEY_SHAPE.test(key);
}

/** What `portal-keys list` shows: enough to recognise a key, never enough to use it. */
export function portalDisplayPrefix(key: string): string {
  return `${key.slice(0, PORTAL_KEY_PREFIX.length + 4)}…`;
}

/** The 401 for a portal key sent to a door that takes API keys (/v1, /mcp). */
export function portalKeyRefused(): AppError {
  return new AppError('unauthorized', `portal keys work only on ${PORTAL_PATH_PREFIX}; /v1 and /mcp take an API key (Authorization: Bearer trk_live_…)`);
}
