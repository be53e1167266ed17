import type { CredentialAdapter } from './adapter.js';
import { authHeaders, refusedMessage } from './vendor-auth.js';
import { callVendor, parseJson } from './vendor-http.js';

/** Where a JSON vendor says who the credentials belong to, and how to read the account name from its answer. */
interface AccountCall {
  path: string;
  name(body: unknown): string | undefined;
}

/** Verification for JSON APIs: authenticate, then one call to the vendor's account ("whoami") endpoint. */
export function accountAdapter(calls: Readonly<Record<string, AccountCall>>): CredentialAdapter {
  return {
    async verify(provider, endpoint, credentials) {
      const call = calls[provider.id];
      if (call === undefined) throw new Error(`no account call is known for ${provider.id}`);
      const headers = await authHeaders(provider, endpoint, credentials);
      const res = await callVendor(provider.id, endpoint, { path: call.path, headers: { ...headers, accept: 'application/json' }, rejected: refusedMessage(provider) });
      const accountName = call.name(parseJson(provider.id, res));
      return accountName === undefined ? {} : { accountName };
    },
  };
}

/** Follows a path of keys through parsed JSON to a string. */
export function textAt(value: unknown, ...keys: string[]): string | undefined {
  let node = value;
  for (const key of keys) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  return typeof node === 'string' && node !== '' ? node : undefined;
}
