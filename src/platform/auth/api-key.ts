import { hash, randomBytes } from 'node:crypto';

const API_KEY_PREFIX = 'trk_live_';
const API_KEY_SHAPE = /^trk_live_[A-Za-z0-9_-]{32}$/;

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(24).toString('base64url');
}

export function isWellFormedApiKey(key: string): boolean {
  return API_KEY_SHAPE.test(key);
}

/** One-shot `hash`: a third of `createHash`'s cost, and every authenticated request pays it. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/** What `keys list` shows: enough to recognise a key, never enough to use it. */
export function displayPrefix(key: string): string {
  return `${key.slice(0, API_KEY_PREFIX.length + 4)}…`;
}
