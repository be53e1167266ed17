import { VendorDocumentInvalidError, type CredentialAdapter } from '../adapter.js';
import { authHeaders, refusedMessage } from '../vendor-auth.js';
import { callVendor } from '../vendor-http.js';
import { documentChildren, IsoDocumentError } from './iso-xml.js';
import { formatOf } from './paging.js';
import { fleetPathOf } from './reader.js';

/** ISO 15143-3 (AEMP 2.0) feeds: credentials work when the first fleet snapshot page (`fleet_id` filling its path where it takes one) reads as a fleet document. */

/**
 * ISO 15143-3 (AEMP 2.0) feeds: credentials work when the first fleet snapshot page reads as a fleet document, read
 * by the same parser every poll uses, so a page connect accepts is a page the polls accept.
 */
export const iso15143Adapter: CredentialAdapter = {
  async verify(provider, endpoint, credentials) {
    const headers = await authHeaders(provider, endpoint, credentials);
    const xml = formatOf({ provider, endpoint }) === 'xml';
    const path = fleetPathOf({ endpoint, ...(credentials.fleet_id === undefined ? {} : { fleetId: credentials.fleet_id }) }, endpoint.firstPage ?? 1);
    const res = await callVendor(provider.id, endpoint, { path, headers: { ...headers, accept: xml ? 'application/xml' : 'application/json' }, rejected: refusedMessage(provider) });
    try {
      await documentChildren(xml ? 'xml' : 'json', res.body, 'Fleet', ['Links', 'Equipment']);
    } catch (err) {
      throw err instanceof IsoDocumentError ? new VendorDocumentInvalidError(provider.id, path, err.reason) : err;
    }
    return {};
  },
};
