import { z } from 'zod';
import { type Environment, parseEnv } from '../../config.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The webhooks module's settings from the environment (docs/configuration.md). */
const webhooksEnv = z.object({
  /** Hosts a webhook URL may name over http and whatever they resolve to (loopback receivers of tests and the demo), comma-separated. */
  WEBHOOK_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)),
  /** How long a receiver has to answer one attempt. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().max(60_000).default(10_000),
  /** Attempts of one delivery before it is recorded failed. */
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(40),
  /** How long the secret before a rotation keeps signing beside the new one. */
  WEBHOOK_SECRET_GRACE_MS: z.coerce.number().int().min(0).default(DAY_MS),
  /** An endpoint that has failed every attempt for this long is disabled (the org sees why). */
  WEBHOOK_DISABLE_AFTER_MS: z.coerce.number().int().positive().default(5 * DAY_MS),
  /** How long events stay listed by GET /v1/events. */
  WEBHOOK_EVENTS_KEEP_MS: z.coerce.number().int().positive().default(30 * DAY_MS),
});

export type WebhooksSettings = z.output<typeof webhooksEnv>;

export function webhooksSettings(env: Environment): WebhooksSettings {
  return parseEnv(webhooksEnv, env);
}
