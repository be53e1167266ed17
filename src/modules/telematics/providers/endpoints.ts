import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, type Environment } from '../../../config.js';
import type { TelematicsSettings } from '../telematics.settings.js';
import { firstIssueText } from '../../../platform/core/issues.js';
import type { ProviderEndpoint } from './adapter.js';
import { findProvider, PROVIDERS, type Provider } from './catalog.js';

/** A vendor URL is operator configuration only (no request field ever names one): http(s), no credentials in it. */
const vendorUrl = z
  .url({ protocol: /^https?$/ })
  // Zod runs this even when the URL check failed, so an unparsable value is left to that check's message.
  .refine((v) => !URL.canParse(v) || (new URL(v).username === '' && new URL(v).password === ''), 'must not carry credentials')
  .transform((v) => v.replace(/\/+$/, ''));

const providerSettings = z.strictObject({
  base_url: vendorUrl.optional(),
  client_id: z.string().min(1).optional(),
  client_secret: z.string().min(1).optional(),
  /** Requests per minute the gateway as a whole may send this vendor (every process together). */
  rate_limit_per_minute: z.coerce.number().int().min(1).max(100_000).optional(),
});
type ProviderSettings = z.infer<typeof providerSettings>;

const configFile = z.strictObject({ providers: z.record(z.string(), providerSettings) });

/** The OAuth client the simulator is played with when nothing else is configured. */
const SIM_CLIENT = { client_id: 'gateway-dev', client_secret: 'gateway-dev-secret' };

const envName = (id: string, what: string) => `PROVIDER_${id.toUpperCase()}_${what}`;

function fromFile(path: string): Record<string, ProviderSettings> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`invalid configuration: PROVIDERS_CONFIG: cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = configFile.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`invalid configuration: PROVIDERS_CONFIG: ${firstIssueText(parsed.error.issues)}`);
  for (const id of Object.keys(parsed.data.providers)) {
    if (!findProvider(id)) throw new ConfigError(`invalid configuration: PROVIDERS_CONFIG: unknown provider ${id}`);
  }
  return parsed.data.providers;
}

function fromEnv(provider: Provider, env: NodeJS.ProcessEnv): ProviderSettings {
  const pick = (what: string) => env[envName(provider.id, what)] || undefined;
  const parsed = providerSettings.safeParse({
    base_url: pick('BASE_URL'),
    client_id: pick('CLIENT_ID'),
    client_secret: pick('CLIENT_SECRET'),
    rate_limit_per_minute: pick('RATE_LIMIT_PER_MINUTE'),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`invalid configuration: ${envName(provider.id, String(issue?.path[0] ?? 'base_url').toUpperCase())}: ${issue?.message ?? 'invalid'}`);
  }
  return Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined));
}

/**
 * Where each provider is reached: PROVIDERS_CONFIG's `providers` section, then PROVIDER_<ID>_BASE_URL / _CLIENT_ID /
 * _CLIENT_SECRET / _RATE_LIMIT_PER_MINUTE from the environment over it; VENDOR_SIM_URL points every provider at `<url>/<provider>` whatever else
 * is set. A provider without a base URL is not connectable on this gateway.
 */
export class ProviderEndpoints {
  private readonly byId: Map<string, ProviderEndpoint>;

  constructor(config: Pick<TelematicsSettings, 'PROVIDERS_CONFIG' | 'VENDOR_SIM_URL' | 'VENDOR_TIMEOUT_MS' | 'VENDOR_RATE_LIMIT_PER_MINUTE'>, env: Environment = process.env) {
    const file = config.PROVIDERS_CONFIG ? fromFile(config.PROVIDERS_CONFIG) : {};
    this.byId = new Map();
    for (const provider of PROVIDERS) {
      if (provider.group === 'stub') continue;
      let settings: ProviderSettings = { ...file[provider.id], ...fromEnv(provider, env) };
      if (config.VENDOR_SIM_URL) settings = { ...SIM_CLIENT, ...settings, base_url: `${config.VENDOR_SIM_URL.replace(/\/+$/, '')}/${provider.id}` };
      if (settings.base_url === undefined) continue;
      this.byId.set(provider.id, {
        baseUrl: settings.base_url,
        timeoutMs: config.VENDOR_TIMEOUT_MS,
        requestsPerMinute: settings.rate_limit_per_minute ?? config.VENDOR_RATE_LIMIT_PER_MINUTE,
        ...(settings.client_id === undefined ? {} : { clientId: settings.client_id }),
        ...(settings.client_secret === undefined ? {} : { clientSecret: settings.client_secret }),
      });
    }
  }

  /** Undefined when the operator has not configured the provider. */
  of(provider: Provider): ProviderEndpoint | undefined {
    return this.byId.get(provider.id);
  }
}
