import type { CreatedPortalKey } from '../../../src/platform/auth/portal-keys.service.js';
import type { Harness } from '../../support/harness.js';

/** The dealer page every portal test calls from unless it says otherwise. */
export const DEALER_ORIGIN = 'https://shop.dealer.example';

/** A portal key for `org` (created when missing), listing DEALER_ORIGIN unless told otherwise. */
export async function portalKey(
  h: Harness,
  org: string,
  opts: { dealer?: string; origins?: string[]; rateLimit?: number; ipRateLimit?: number } = {},
): Promise<CreatedPortalKey> {
  await h.org(org);
  return h.gateway.services.portalKeys.create({
    org,
    dealer: opts.dealer ?? 'Springfield Tire',
    origins: opts.origins ?? [DEALER_ORIGIN],
    ...(opts.rateLimit === undefined ? {} : { rate_limit_per_minute: opts.rateLimit }),
    ...(opts.ipRateLimit === undefined ? {} : { ip_rate_limit_per_minute: opts.ipRateLimit }),
  });
}

let nextIp = 1;
/** A client address of its own, so the per-IP limit is only met where a test means to meet it. */
export const freshIp = (): string => `10.9.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 1}`;

export interface PortalCall {
  method?: 'GET' | 'POST' | 'OPTIONS' | 'PATCH';
  url: string;
  key?: string;
  /** The page's origin; null sends none. */
  origin?: string | null;
  payload?: unknown;
  headers?: Record<string, string>;
  ip?: string;
}

/** A dealer page's call: X-Portal-Key, its Origin, a JSON body when there is one. */
export function portalRequest(h: Harness, call: PortalCall) {
  const origin = call.origin === undefined ? DEALER_ORIGIN : call.origin;
  const headers: Record<string, string> = {
    ...(call.key === undefined ? {} : { 'x-portal-key': call.key }),
    ...(origin === null ? {} : { origin }),
    ...(call.payload === undefined ? {} : { 'content-type': 'application/json' }),
    ...call.headers,
  };
  return h.request({
    method: call.method ?? 'GET',
    url: call.url,
    headers,
    remoteAddress: call.ip ?? freshIp(),
    ...(call.payload === undefined ? {} : { payload: typeof call.payload === 'string' ? call.payload : JSON.stringify(call.payload) }),
  });
}

/** Seeds products through the API: quantities chosen to give each availability (default thresholds: low <= 8, backorder <= 0). */
export async function seedCatalog(h: Harness, org: string): Promise<void> {
  const key = (await h.key(org, 'products:write')).key;
  const products = [
    { sku: 'PILOT-225', name: 'Pilot Sport 225/45R17', description: 'Summer performance', stock_qty: 40, bin_location: 'A-01' },
    { sku: 'PILOT-235', name: 'Pilot Sport 235/40R18', stock_qty: 5, bin_location: 'A-02' },
    { sku: 'WINTER-205', name: 'Alpin 205/55R16', stock_qty: 0, bin_location: 'B-07' },
    { sku: 'OLD-195', name: 'Energy Saver 195/65R15', stock_qty: 12, status: 'discontinued' },
  ];
  for (const payload of products) {
    const res = await h.request({ method: 'POST', url: '/v1/products', payload, key });
    if (res.statusCode !== 201) throw new Error(`seeding ${payload.sku}: ${res.body}`);
  }
}
