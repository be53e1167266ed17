import type { Provider, ProviderGroup } from './catalog.js';
import { aggregatorReader } from './aggregator/reader.js';
import { iso15143Reader } from './iso15143/reader.js';
import { oemOAuthReader } from './oem-oauth/reader.js';
import type { VendorReader } from './reader.js';
import { tpmsReader } from './tpms/reader.js';

export type { NormalizedEvent } from './event.js';
export type { ReaderContext, SeriesRange, VendorReader } from './reader.js';

/** Readers by provider group; stubs have no API to read. */
const READERS: Readonly<Record<ProviderGroup, VendorReader | undefined>> = {
  iso15143: iso15143Reader,
  oem_oauth: oemOAuthReader,
  aggregator: aggregatorReader,
  tpms: tpmsReader,
  stub: undefined,
};

export function readerFor(provider: Provider): VendorReader | undefined {
  return READERS[provider.group];
}
