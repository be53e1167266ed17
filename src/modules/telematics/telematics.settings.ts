import { z } from 'zod';
import { type Environment, parseEnv } from '../../config.js';
import { PROVIDERS } from './providers/catalog.js';

/** Up to a day: a device clock further off than that is wrong, not skewed. */
const skewSeconds = z.coerce.number().int().min(0).max(86_400);

/** The telematics module's settings from the environment: vendors, their budgets and the poller (docs/configuration.md). */
const telematicsEnv = z.object({
  /** A JSON file with a `providers` section: base URLs and OAuth clients per telematics provider. */
  PROVIDERS_CONFIG: z.string().optional(),
  /** Points every telematics provider at the vendor simulator (`<url>/<provider>`), whatever else is configured. */
  VENDOR_SIM_URL: z.string().url().optional(),
  VENDOR_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Requests per minute to one vendor from all processes together (per provider: PROVIDERS_CONFIG, PROVIDER_<ID>_RATE_LIMIT_PER_MINUTE). */
  VENDOR_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(600),
  /** Telematics polls in flight per process, all providers together, and per provider. */
  POLLER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  POLLER_PER_PROVIDER: z.coerce.number().int().min(1).max(64).default(4),
  /** How often an idle poller looks for due connections. */
  POLLER_IDLE_MS: z.coerce.number().int().positive().default(1000),
  /** How long a poll holds its connection without progress (each batch written renews it); then another process may. */
  POLL_LEASE_MS: z.coerce.number().int().positive().default(2 * 60 * 1000),
  /**
   * Of the time while this process answers requests, the most its scheduled polls' work (reading each piece of a vendor's
   * answer, writing each batch of events and marks) may take (docs/configuration.md).
   */
  POLL_SHARE_WHEN_BUSY: z.coerce.number().gt(0).max(1).default(0.2),
  /** Replay syncs run at once per process; slices a claim runs before the sync takes its turn again; how long an idle worker waits. */
  SYNC_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  SYNC_SLICES_PER_CLAIM: z.coerce.number().int().min(1).max(100_000).default(50),
  SYNC_IDLE_MS: z.coerce.number().int().positive().default(1000),
  /** How long a sync's holder keeps it without progress (each slice renews it); then another process resumes it. */
  SYNC_LEASE_MS: z.coerce.number().int().positive().default(2 * 60 * 1000),
  /** Failures in a row of one slice (vendor down, timeouts) before the sync ends failed. */
  SYNC_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  /**
   * Of the time while this process answers requests, the most its replay syncs' work (reading pages, writing events) may
   * take: a backfill comes after the requests and catches up once the load eases (docs/configuration.md).
   */
  SYNC_SHARE_WHEN_BUSY: z.coerce.number().gt(0).max(1).default(0.2),
  /** A reading stamped more than this many seconds ahead of the gateway's clock is not sent (a device clock set wrong). */
  FUTURE_SKEW_S: skewSeconds.default(600),
});

export type TelematicsSettings = z.output<typeof telematicsEnv>;

/** Reads the module's settings; a bad value fails start with one clear line, like the gateway's own. */
export function telematicsSettings(env: Environment): TelematicsSettings {
  return parseEnv(telematicsEnv, env);
}

/**
 * The future skew per provider, in ms: FUTURE_SKEW_S, or PROVIDER_<ID>_FUTURE_SKEW_S for a vendor whose clocks run
 * looser (or tighter); a bad value fails start with one line naming the variable.
 */
export function futureSkews(settings: TelematicsSettings, env: Environment): (providerId: string) => number {
  const names = Object.fromEntries(PROVIDERS.map((p) => [p.id, `PROVIDER_${p.id.toUpperCase()}_FUTURE_SKEW_S`]));
  const perProvider = parseEnv(z.object(Object.fromEntries(Object.values(names).map((name) => [name, skewSeconds.optional()]))), env);
  return (providerId) => {
    const name = names[providerId];
    return ((name === undefined ? undefined : perProvider[name]) ?? settings.FUTURE_SKEW_S) * 1000;
  };
}
