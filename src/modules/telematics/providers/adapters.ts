import type { Provider, ProviderGroup } from './catalog.js';
import type { CredentialAdapter, OAuthConsentAdapter } from './adapter.js';
import { aggregatorAdapter } from './aggregator/adapter.js';
import { iso15143Adapter } from './iso15143/adapter.js';
import { oemOAuthAdapter } from './oem-oauth/adapter.js';
import { tpmsAdapter } from './tpms/adapter.js';

/** Adapters by provider group: stubs have none, OEM platforms connect by consent instead of credentials. */
const CREDENTIAL_ADAPTERS: Readonly<Record<ProviderGroup, CredentialAdapter | undefined>> = {
  iso15143: iso15143Adapter,
  aggregator: aggregatorAdapter,
  tpms: tpmsAdapter,
  oem_oauth: undefined,
  stub: undefined,
};

export function credentialAdapterFor(provider: Provider): CredentialAdapter | undefined {
  return CREDENTIAL_ADAPTERS[provider.group];
}

export function oauthAdapterFor(provider: Provider): OAuthConsentAdapter | undefined {
  return provider.group === 'oem_oauth' ? oemOAuthAdapter(provider) : undefined;
}
