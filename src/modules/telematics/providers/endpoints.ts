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

const hasCredentials = (v: string): boolean => URL.canParse(v) && (new URL(v).username !== '' || new URL(v).password !== '');

/** A token or authorize endpoint: an absolute http(s) URL, or a path under base_url. */
const urlOrPath = z.string().superRefine((v, ctx) => {
  const path = v.startsWith('/') && !v.startsWith('//');
  const absolute = URL.canParse(v) && /^https?:$/.test(new URL(v).protocol);
  if (path ? /[\s?#]/.test(v) : !absolute) ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL or a path starting with / (no spaces, query or fragment)' });
  else if (hasCredentials(v)) ctx.addIssue({ code: 'custom', message: 'must not carry credentials' });
});

/** An ISO path template: only its own placeholders, the required ones present, one path segment each. */
const pathTemplate = (required: readonly string[], optional: readonly string[]) =>
  z.string().superRefine((v, ctx) => {
    const names = [...v.matchAll(/\{([^}]*)\}/g)].map((m) => m[1] ?? '');
    const unknown = names.find((n) => !required.includes(n) && !optional.includes(n));
    const missing = required.find((n) => !names.includes(n));
    if (!/^\/[A-Za-z0-9._~\-/{}]*$/.test(v)) ctx.addIssue({ code: 'custom', message: 'must be a path starting with / (letters, digits, . _ ~ - and {placeholders})' });
    else if (unknown !== undefined) ctx.addIssue({ code: 'custom', message: `{${unknown}} is not a placeholder here (use ${[...required, ...optional].map((n) => `{${n}}`).join(', ')})` });
    else if (missing !== undefined) ctx.addIssue({ code: 'custom', message: `must contain {${missing}}` });
  });

const seconds = (min: number) => z.coerce.number().int().min(min).max(24 * 3600);

/** Parameters the gateway sets itself cannot be overridden through token_params. */
const OWN_TOKEN_PARAMS = new Set(['grant_type', 'username', 'password', 'client_id', 'client_secret', 'scope', 'audience', 'code', 'code_verifier', 'redirect_uri', 'refresh_token']);

const providerSettings = z.strictObject({
  base_url: vendorUrl.optional(),
  client_id: z.string().min(1).optional(),
  client_secret: z.string().min(1).optional(),
  /** Requests per minute the gateway as a whole may send this vendor (every process together). */
  rate_limit_per_minute: z.coerce.number().int().min(1).max(100_000).optional(),
  /** One call per URL per this many seconds (per connection), as some feed hosts allow. */
  url_interval_s: seconds(1).optional(),
  token_url: urlOrPath.optional(),
  authorize_url: urlOrPath.optional(),
  scope: z.string().min(1).max(1000).optional(),
  audience: z.string().min(1).max(1000).optional(),
  token_params: z
    .record(z.string().regex(/^[A-Za-z][\w.-]{0,63}$/, 'must be a parameter name'), z.string().max(1000))
    .refine((params) => !Object.keys(params).some((k) => OWN_TOKEN_PARAMS.has(k)), 'must not set a parameter the gateway sets itself (grant_type, client_id, scope, ...)')
    .optional(),
  fleet_path: pathTemplate(['page'], ['fleet_id']).optional(),
  series_path: pathTemplate(['pin', 'element', 'start', 'end', 'page'], ['fleet_id']).optional(),
  series_base_url: vendorUrl.optional(),
  first_page: z.coerce.number().int().min(0).max(1).optional(),
  format: z.enum(['xml', 'json']).optional(),
  poll_interval_s: seconds(60).optional(),
  min_poll_interval_s: seconds(60).optional(),
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
    url_interval_s: pick('URL_INTERVAL_S'),
    token_url: pick('TOKEN_URL'),
    authorize_url: pick('AUTHORIZE_URL'),
    scope: pick('SCOPE'),
    audience: pick('AUDIENCE'),
    fleet_path: pick('FLEET_PATH'),
    series_path: pick('SERIES_PATH'),
    series_base_url: pick('SERIES_BASE_URL'),
    first_page: pick('FIRST_PAGE'),
    format: pick('FORMAT'),
    poll_interval_s: pick('POLL_INTERVAL_S'),
    min_poll_interval_s: pick('MIN_POLL_INTERVAL_S'),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`invalid configuration: ${envName(provider.id, String(issue?.path[0] ?? 'base_url').toUpperCase())}: ${issue?.message ?? 'invalid'}`);
  }
  return Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined));
}

/** The simulator plays every host of a vendor, so settings naming another host would leave it: they are dropped. */
function withoutOtherHosts(settings: ProviderSettings): ProviderSettings {
  const absolute = (v: string | undefined) => v !== undefined && !v.startsWith('/');
  const { series_base_url: _series, token_url, authorize_url, ...rest } = settings;
  return { ...rest, ...(absolute(token_url) ? {} : { token_url }), ...(absolute(authorize_url) ? {} : { authorize_url }) };
}

type Config = Pick<TelematicsSettings, 'VENDOR_TIMEOUT_MS' | 'VENDOR_RATE_LIMIT_PER_MINUTE'>;

/** A setting that makes no sense for the provider's group or auth, or intervals that contradict each other: one line. */
function checkFits(provider: Provider, s: ProviderSettings): void {
  const where = `providers.${provider.id}`;
  const fail = (message: string) => new ConfigError(`invalid configuration: PROVIDERS_CONFIG / PROVIDER_${provider.id.toUpperCase()}_*: ${where}.${message}`);
  const iso = ['fleet_path', 'series_path', 'series_base_url', 'first_page', 'format'] as const;
  const isoSet = iso.find((k) => s[k] !== undefined);
  if (isoSet !== undefined && provider.group !== 'iso15143') throw fail(`${isoSet}: only ISO 15143-3 feeds have it`);
  const oauth = (['token_url', 'scope', 'audience', 'token_params'] as const).find((k) => s[k] !== undefined);
  if (oauth !== undefined && !provider.auth.startsWith('oauth_')) throw fail(`${oauth}: ${provider.id} does not use OAuth`);
  if (s.authorize_url !== undefined && provider.auth !== 'oauth_authorization_code') throw fail(`authorize_url: ${provider.id} has no consent in the browser`);
  const min = s.min_poll_interval_s ?? Math.max(provider.minPollSeconds, s.url_interval_s ?? 0);
  if (s.url_interval_s !== undefined && min < s.url_interval_s) throw fail(`min_poll_interval_s: must be at least url_interval_s (${s.url_interval_s})`);
  if (s.poll_interval_s !== undefined && s.poll_interval_s < min) throw fail(`poll_interval_s: must be at least the minimum interval (${min})`);
}

/** A configured path, or an absolute URL, resolved against the base URL. */
const resolve = (baseUrl: string, urlOrPath: string): string => (urlOrPath.startsWith('/') ? `${baseUrl}${urlOrPath}` : urlOrPath);

function endpointOf(provider: Provider, baseUrl: string, s: ProviderSettings, config: Config): ProviderEndpoint {
  const min = s.min_poll_interval_s ?? Math.max(provider.minPollSeconds, s.url_interval_s ?? 0);
  const optional = {
    clientId: s.client_id,
    clientSecret: s.client_secret,
    urlIntervalSeconds: s.url_interval_s,
    tokenUrl: s.token_url === undefined ? undefined : resolve(baseUrl, s.token_url),
    authorizeUrl: s.authorize_url === undefined ? undefined : resolve(baseUrl, s.authorize_url),
    scope: s.scope,
    audience: s.audience,
    tokenParams: s.token_params,
    fleetPath: s.fleet_path,
    seriesPath: s.series_path,
    seriesBaseUrl: s.series_base_url,
    firstPage: s.first_page === undefined ? undefined : (s.first_page as 0 | 1),
    format: s.format,
    // Only when they differ from the catalog's, so an endpoint without settings reads as it always has.
    minPollSeconds: min === provider.minPollSeconds ? undefined : min,
    pollIntervalSeconds: s.poll_interval_s === undefined && min === provider.minPollSeconds ? undefined : (s.poll_interval_s ?? min),
  };
  return {
    baseUrl,
    timeoutMs: config.VENDOR_TIMEOUT_MS,
    requestsPerMinute: s.rate_limit_per_minute ?? config.VENDOR_RATE_LIMIT_PER_MINUTE,
    ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
  };
}

/**
 * Where each provider is reached and how it is spoken to: PROVIDERS_CONFIG's `providers` section, then PROVIDER_<ID>_<SETTING>
 * from the environment over it (docs/configuration.md); VENDOR_SIM_URL points every provider at `<url>/<provider>`
 * whatever else is set. A provider without a base URL is not connectable on this gateway.
 */
export class ProviderEndpoints {
  private readonly byId: Map<string, ProviderEndpoint>;

  constructor(config: Pick<TelematicsSettings, 'PROVIDERS_CONFIG' | 'VENDOR_SIM_URL' | 'VENDOR_TIMEOUT_MS' | 'VENDOR_RATE_LIMIT_PER_MINUTE'>, env: Environment = process.env) {
    const file = config.PROVIDERS_CONFIG ? fromFile(config.PROVIDERS_CONFIG) : {};
    this.byId = new Map();
    for (const provider of PROVIDERS) {
      if (provider.group === 'stub') continue;
      let settings: ProviderSettings = { ...file[provider.id], ...fromEnv(provider, env) };
      if (config.VENDOR_SIM_URL) settings = { ...SIM_CLIENT, ...withoutOtherHosts(settings), base_url: `${config.VENDOR_SIM_URL.replace(/\/+$/, '')}/${provider.id}` };
      // Checked whether or not the provider is reachable here, so a mistake shows before the day it is configured.
      checkFits(provider, settings);
      if (settings.base_url === undefined) continue;
      this.byId.set(provider.id, endpointOf(provider, settings.base_url, settings, config));
    }
  }

  /** Undefined when the operator has not configured the provider. */
  of(provider: Provider): ProviderEndpoint | undefined {
    return this.byId.get(provider.id);
  }
}
