import { createHmac, randomBytes } from 'node:crypto';

/** Signing per the Standard Webhooks spec (standardwebhooks.com): secrets, the signed content and the headers. */

const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random bytes in base64, the form the spec's libraries take. */
export function newSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the secret's base64 part decoded. */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The three headers of one attempt; every secret given signs (during a rotation's grace period, the new and the old). */
export function signedHeaders(secrets: readonly string[], id: string, at: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => sign(secret, id, timestamp, body)).join(' '),
  };
}
