/**
 * The telematics providers a fleet can connect (spec section 4, brand names replaced by vendorN), by group: how each
 * is reached decides its credentials and its adapter. Adding a provider is an entry here (plus, at most, an adapter).
 */
export type ProviderGroup = 'iso15143' | 'oem_oauth' | 'aggregator' | 'tpms' | 'stub';

export interface Provider {
  id: string;
  group: ProviderGroup;
}

const group = (g: ProviderGroup, ids: readonly string[]): Provider[] => ids.map((id) => ({ id, group: g }));

export const PROVIDERS: readonly Provider[] = [
  ...group('iso15143', [
    'vendor1_livelink', 'vendor2_machineiq', 'vendor3_himate', 'vendor4_caretrack', 'vendor5_visionlink',
    'vendor6_lida', 'vendor7_consite', 'vendor8_connect', 'vendor9_sitewatch', 'vendor10_fleetforce',
  ]),
  ...group('oem_oauth', ['vendor11_operations_center', 'vendor12_fieldops']),
  ...group('aggregator', ['vendor13', 'vendor14', 'vendor15', 'vendor16', 'vendor17']),
  ...group('tpms', ['vendor18_tyresense', 'vendor19_connect']),
  // Listed so a fleet is told to contact the vendor, rather than that the provider does not exist.
  ...group('stub', ['vendor20_tireview', 'vendor21_360']),
];

const BY_ID = new Map(PROVIDERS.map((p) => [p.id, p]));

export const PROVIDER_IDS: readonly string[] = PROVIDERS.map((p) => p.id);

export function findProvider(id: string): Provider | undefined {
  return BY_ID.get(id);
}
