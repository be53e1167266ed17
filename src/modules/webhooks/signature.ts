import { createHmac, randomBytes } from 'node:crypto';

/** Signing per the Standard Webhooks spec (standardwebhooks.com): secrets, the signed content and the headers. */

const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random bytes in base64, the form the spec's libraries take. */
export function newSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The HMAC key of a secret: its base64 part decoded (once per endpoint per batch, not per delivery). */
export function signingKey(secret: string): Buffer {
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with a secret's signing key. */
export function sign(key: Uint8Array, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The three headers of one attempt; every key given signs (during a rotation's grace period, the new and the old). */
export function signedHeaders(keys: readonly Uint8Array[], id: string, at: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': keys.map((key) => sign(key, id, timestamp, body)).join(' '),
  };
}
