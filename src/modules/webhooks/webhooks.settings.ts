import { z } from 'zod';
import { ConfigError, type Environment, parseEnv } from '../../config.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** `30s`, `5m`, `2h` (or bare milliseconds) -> milliseconds; NaN when unreadable, so the schema refuses it. */
function delayMs(text: string): number {
  const m = /^(\d+)(ms|s|m|h)?$/.exec(text.trim());
  return m ? Number(m[1]) * UNIT_MS[(m[2] ?? 'ms') as keyof typeof UNIT_MS] : Number.NaN;
}

/** About a day in all: doubling from a minute to 8 hours; each delay is jittered when used (webhookRetryDelayMs). */
const DEFAULT_RETRY_SCHEDULE = '1m,2m,4m,8m,16m,32m,1h,2h,4h,8h,8h';

/** The webhooks module's settings from the environment (docs/configuration.md). */
const webhooksEnv = z.object({
  /** Hosts a webhook URL may name over http and whatever they resolve to (loopback receivers of tests and the demo), comma-separated. */
  WEBHOOK_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)),
  /** How long a receiver has to answer one attempt. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().max(60_000).default(10_000),
  /** The delays between a delivery's attempts, comma-separated (`30s`, `5m`, `2h`); the last repeats past the end. */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default(DEFAULT_RETRY_SCHEDULE)
    .transform((v) => v.split(',').map(delayMs))
    .refine((delays) => delays.length <= 100 && delays.every((d) => Number.isSafeInteger(d) && d > 0 && d <= 7 * DAY_MS), 'a comma-separated list of delays such as 30s,5m,2h (each above 0 and at most 7 days)'),
  /** Attempts of one delivery before it is recorded failed; by default one more than the schedule's delays. */
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).optional(),
  /** The longest a receiver's Retry-After (429, 503) holds its endpoint's deliveries back. */
  WEBHOOK_RETRY_AFTER_MAX_MS: z.coerce.number().int().positive().max(DAY_MS).default(60 * 60_000),
  /** How long the secret before a rotation keeps signing beside the new one. */
  WEBHOOK_SECRET_GRACE_MS: z.coerce.number().int().min(0).default(DAY_MS),
  /** An endpoint that has failed every attempt for this long is disabled (the org sees why). */
  WEBHOOK_DISABLE_AFTER_MS: z.coerce.number().int().positive().default(5 * DAY_MS),
  /** Whether webhook POSTs are sent from one worker thread (`on`) or from the request thread (`off`); see docs/decisions.md. */
  WEBHOOK_SEND_THREAD: z.enum(['on', 'off']).default('on'),
  /**
   * Of the time while this process answers requests, the most its webhook work (fan-out and sends) may take: requests
   * come first, webhooks are asynchronous and catch up once the load eases (docs/configuration.md).
   */
  WEBHOOK_SHARE_WHEN_BUSY: z.coerce.number().gt(0).max(1).default(0.05),
  /** How long events stay listed by GET /v1/events. */
  WEBHOOK_EVENTS_KEEP_MS: z.coerce.number().int().positive().default(30 * DAY_MS),
});

export type WebhooksSettings = Omit<z.output<typeof webhooksEnv>, 'WEBHOOK_MAX_ATTEMPTS'> & { WEBHOOK_MAX_ATTEMPTS: number };

export function webhooksSettings(env: Environment): WebhooksSettings {
  const parsed = parseEnv(webhooksEnv, env);
  return { ...parsed, WEBHOOK_MAX_ATTEMPTS: parsed.WEBHOOK_MAX_ATTEMPTS ?? parsed.WEBHOOK_RETRY_SCHEDULE.length + 1 };
}

/**
 * A batch's deliveries are sent in parallel, each cut at WEBHOOK_TIMEOUT_MS, under the lease the delivery worker took
 * (OUTBOX_LEASE_MS): a lease that can run out first lets another worker take the batch and send it a second time.
 */
export function checkLeaseOutlastsTimeout(settings: WebhooksSettings, outboxLeaseMs: number): void {
  if (outboxLeaseMs > settings.WEBHOOK_TIMEOUT_MS) return;
  throw new ConfigError(
    `invalid configuration: OUTBOX_LEASE_MS (${outboxLeaseMs}) must be longer than WEBHOOK_TIMEOUT_MS (${settings.WEBHOOK_TIMEOUT_MS}), or a webhook still in flight when its lease runs out is sent again`,
  );
}

/**
 * The wait before attempt `attempts + 1`, after `attempts` failed: the schedule's delay with ±25% jitter, so the
 * deliveries of one outage do not all come back at once.
 */
export function webhookRetryDelayMs(schedule: readonly number[], attempts: number, random: () => number = Math.random): number {
  const base = schedule[Math.min(Math.max(attempts, 1), schedule.length) - 1] ?? 60_000;
  return Math.round(base * (0.75 + 0.5 * Math.min(Math.max(random(), 0), 1)));
}
