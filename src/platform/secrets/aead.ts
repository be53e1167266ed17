import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
// Fixed: another info string derives other keys, which would be a change of master secret.
const KEK_INFO = 'tire-gateway secret vault: key-encryption key v1';

/** A key-encryption key and its id (a short hash of it): the id tags each data key it wraps. */
export interface Kek {
  id: string;
  key: Buffer;
}

/** The key-encryption key of a master secret (GATEWAY_SECRET): HKDF-SHA256, so the secret's text is never a key. */
export function deriveKek(secret: string): Kek {
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), KEK_INFO, 32));
  return { id: createHash('sha256').update(key).digest('hex').slice(0, 16), key };
}

/** AES-256-GCM under a random 12-byte IV: `<iv b64url>:<ciphertext+tag b64url>`; the AAD ties it to one record. */
export function seal(key: Buffer, plaintext: Buffer, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return `${iv.toString('base64url')}:${body.toString('base64url')}`;
}

/** Base64url that decodes and re-encodes to the same text: Node's decoder skips stray characters instead of failing. */
function strictBase64url(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

/** What `seal` sealed; undefined when the text is malformed, altered, or sealed under another key or AAD. */
export function unseal(key: Buffer, sealed: string, aad: string): Buffer | undefined {
  const [ivText = '', bodyText = '', ...extra] = sealed.split(':');
  const iv = strictBase64url(ivText);
  const body = strictBase64url(bodyText);
  if (extra.length > 0 || iv?.length !== IV_BYTES || body === undefined || body.length < TAG_BYTES) return undefined;
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}
