import { VendorDocumentInvalidError, type CredentialAdapter } from '../adapter.js';
import { authHeaders, refusedMessage } from '../vendor-auth.js';
import { callVendor, parseJson } from '../vendor-http.js';

/** ISO 15143-3 (AEMP 2.0) feeds: credentials work when the first fleet snapshot page comes back as a fleet document. */

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
    const accept = provider.format === 'xml' ? 'application/xml' : 'application/json';
    const res = await callVendor(provider.id, endpoint, { path: '/Fleet/1', headers: { ...headers, accept }, rejected: refusedMessage(provider) });
    const isFleet = provider.format === 'xml' ? FLEET_ROOT.test(res.body) : isJsonFleet(parseJson(provider.id, res));
    if (!isFleet) throw new VendorDocumentInvalidError(provider.id, '/Fleet/1', 'not an ISO 15143-3 fleet document');
    return {};
  },
};
