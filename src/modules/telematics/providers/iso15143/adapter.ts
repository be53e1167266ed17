import { VendorUnavailableError, type CredentialAdapter } from '../adapter.js';
import { authHeaders, refusedMessage } from '../vendor-auth.js';
import { callVendor, parseJson } from '../vendor-http.js';
import { formatOf } from './paging.js';
import { fleetPathOf } from './reader.js';

/** ISO 15143-3 (AEMP 2.0) feeds: credentials work when the first fleet snapshot page (`fleet_id` filling its path where it takes one) comes back as a fleet document. */

// The root element, with or without a namespace prefix, after an optional declaration and comments.
const FLEET_ROOT = /^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:[A-Za-z_][\w.-]*:)?Fleet[\s/>]/;

function isJsonFleet(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const doc = value as Record<string, unknown>;
  return Array.isArray(doc.Equipment) || Array.isArray(doc.Links);
}

export const iso15143Adapter: CredentialAdapter = {
  async verify(provider, endpoint, credentials) {
    const headers = await authHeaders(provider, endpoint, credentials);
    const xml = formatOf({ provider, endpoint }) === 'xml';
    const path = fleetPathOf({ endpoint, ...(credentials.fleet_id === undefined ? {} : { fleetId: credentials.fleet_id }) }, endpoint.firstPage ?? 1);
    const res = await callVendor(provider.id, endpoint, { path, headers: { ...headers, accept: xml ? 'application/xml' : 'application/json' }, rejected: refusedMessage(provider) });
    const isFleet = xml ? FLEET_ROOT.test(res.body) : isJsonFleet(parseJson(provider.id, res));
    if (!isFleet) throw new VendorUnavailableError(`${provider.id} did not answer with an ISO 15143-3 fleet document`, 'failed');
    return {};
  },
};
