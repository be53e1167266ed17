import { VendorDocumentInvalidError, type CredentialAdapter } from '../adapter.js';
import { authHeaders, refusedMessage } from '../vendor-auth.js';
import { callVendor } from '../vendor-http.js';
import { documentChildren, IsoDocumentError } from './iso-xml.js';

/**
 * ISO 15143-3 (AEMP 2.0) feeds: credentials work when the first fleet snapshot page reads as a fleet document, read
 * by the same parser every poll uses, so a page connect accepts is a page the polls accept.
 */
export const iso15143Adapter: CredentialAdapter = {
  async verify(provider, endpoint, credentials) {
    const headers = await authHeaders(provider, endpoint, credentials);
    const accept = provider.format === 'xml' ? 'application/xml' : 'application/json';
    const path = '/Fleet/1';
    const res = await callVendor(provider.id, endpoint, { path, headers: { ...headers, accept }, rejected: refusedMessage(provider) });
    try {
      await documentChildren(provider.format === 'xml' ? 'xml' : 'json', res.body, 'Fleet', ['Links', 'Equipment']);
    } catch (err) {
      throw err instanceof IsoDocumentError ? new VendorDocumentInvalidError(provider.id, path, err.reason) : err;
    }
    return {};
  },
};
