import type { YieldToRequests } from '../../../platform/core/yield-to-requests.js';
import type { Credentials, ProviderEndpoint } from './adapter.js';
import { authHeaders } from './vendor-auth.js';
import type { Provider } from './catalog.js';
import { eventId, type Equipment, type EventData, type EventType, type NormalizedEvent } from './event.js';

/**
 * What a read came across and could not use as it stands, counted in the connection's issues (with first and last
 * seen): a reading stamped in the future, an element or unit the mapping does not know, a vendor placeholder, a wait
 * for the vendor's budget, a document that does not parse.
 */
export type ReadIssueKind = 'future_timestamp' | 'unmapped_element' | 'unknown_unit' | 'placeholder' | 'budget_wait' | 'document_invalid';

/** What a read needs: which vendor, where, as whom, for which connection, from when. */
export interface ReaderContext {
  provider: Provider;
  endpoint: ProviderEndpoint;
  /** The fleet's credentials (used per the provider's auth style), or an access token already held (OEM consent). */
  auth: { credentials: Credentials } | { accessToken: string };
  connectionId: string;
  /** The fleet's id at the vendor, captured at connect, for paths that name it (`/{fleet_id}/Fleet/{page}`). */
  fleetId?: string;
  /**
   * Readings observed before it are skipped (a replay window's start); repeats at the boundary keep their ids, so the
   * hub drops them. Polls pass none: their marks are per machine, and a machine added with older readings must be read.
   */
  since?: Date;
  /** Events per yielded batch (default 500, the hub's batch size). */
  batchSize?: number;
  /** Pages followed in one paged read before giving up on the vendor (default 10,000). */
  maxPages?: number;
  /**
   * Background reads (replay syncs, scheduled polls) that yield to requests: each piece of a vendor's answer, parsed and
   * mapped to events, is read as one round of it, after the vendor's budget and the request; absent (a manual poll, the
   * connect check): read at once.
   */
  yields?: YieldToRequests;
  /** Told of each thing read but not used, with a short detail (an element name, a unit, a URL path); absent: nobody counts. */
  report?: (kind: ReadIssueKind, detail: string) => void;
}

/** A machine whose history can be read: its PIN (the series key) and the equipment its readings belong to. */
export interface SeriesMachine {
  pin: string;
  equipment: Equipment;
}

/** A time-series window (ISO 15143-3 feeds): each machine's readings between start and end. */
export interface SeriesRange {
  start: Date;
  end: Date;
  /** Machines to read, by PIN; default every machine of the fleet snapshot. */
  pins?: readonly string[];
  /** Machines to read, as the fleet snapshot named them (a sync's slice); wins over `pins`. */
  machines?: readonly SeriesMachine[];
  /** ISO data elements (`CumulativeOperatingHours`, `Locations`, ...); default every one the reader maps. */
  elements?: readonly string[];
}

/**
 * Reads one connection's vendor into normalized events, in batches, so memory stays flat whatever the fleet size.
 * Errors: VendorRejectedError (401/403, refused credentials or token), VendorUnavailableError (timeouts, 429 and 5xx
 * with retryAfterSeconds when the vendor said, unreadable answers).
 */
export interface VendorReader {
  /** The latest reading of every machine. */
  snapshot(ctx: ReaderContext): AsyncIterable<NormalizedEvent[]>;
  /** Replay of past readings, where the vendor keeps them. */
  series?(ctx: ReaderContext, range: SeriesRange): AsyncIterable<NormalizedEvent[]>;
  /** What a background sync slices a replay by: the fleet's machines and the data elements a series is read for. */
  history?: { elements: readonly string[]; machines(ctx: ReaderContext): Promise<SeriesMachine[]> };
}

const DEFAULT_BATCH_SIZE = 500;
export const DEFAULT_MAX_PAGES = 10_000;

/** `work` as one round of the read's yields, or at once when it has none. */
export async function inRound<T>(ctx: ReaderContext, work: () => T): Promise<T> {
  return ctx.yields === undefined ? work() : ctx.yields.run(() => Promise.resolve().then(work));
}

/** Headers that authenticate a data call: the token held, or a fresh one/Basic/API key from the credentials. */
export async function dataHeaders(ctx: ReaderContext): Promise<Record<string, string>> {
  if ('accessToken' in ctx.auth) return { authorization: `Bearer ${ctx.auth.accessToken}` };
  return authHeaders(ctx.provider, ctx.endpoint, ctx.auth.credentials);
}

const tireTypes = new Set<EventType>(['tire_pressure', 'tire_temperature']);

/** The event of one reading, or undefined when its time is unknown or before the cursor. */
export function eventOf<T extends EventType>(ctx: ReaderContext, equipment: Equipment, type: T, observedAt: string | undefined, data: EventData<T>): NormalizedEvent | undefined {
  if (observedAt === undefined) return undefined;
  if (ctx.since !== undefined && Date.parse(observedAt) < ctx.since.getTime()) return undefined;
  const fields = data as Record<string, unknown>;
  const discriminator = tireTypes.has(type) ? String(fields.position) : type === 'fault' ? String(fields.code) : type === 'tpms_alert' ? `${String(fields.position)}/${String(fields.code)}` : undefined;
  return {
    id: eventId(ctx.connectionId, equipment.id, type, observedAt, discriminator),
    connection_id: ctx.connectionId,
    provider: ctx.provider.id,
    equipment,
    type,
    observed_at: observedAt,
    data,
  } as NormalizedEvent;
}

/** Equipment with only what the vendor said; undefined without any id to key it by. */
export function equipmentOf(fields: { id?: string | undefined; oem?: string | undefined; model?: string | undefined; serial?: string | undefined; pin?: string | undefined }): Equipment | undefined {
  const id = fields.id ?? fields.pin ?? fields.serial;
  if (id === undefined) return undefined;
  return { id, oem: fields.oem ?? null, model: fields.model ?? null, serial: fields.serial ?? null, pin: fields.pin ?? null };
}

/** Collects events and hands them on in batches of the context's size. */
export class Batcher {
  private events: NormalizedEvent[] = [];
  private readonly size: number;

  constructor(ctx: ReaderContext) {
    this.size = Math.max(1, ctx.batchSize ?? DEFAULT_BATCH_SIZE);
  }

  add(event: NormalizedEvent | undefined): void {
    if (event !== undefined) this.events.push(event);
  }

  /** A full batch when there is one. */
  full(): NormalizedEvent[] | undefined {
    return this.events.length >= this.size ? this.events.splice(0, this.size) : undefined;
  }

  /** Every full batch there is, oldest first. */
  fullBatches(): NormalizedEvent[][] {
    const out: NormalizedEvent[][] = [];
    for (let batch = this.full(); batch !== undefined; batch = this.full()) out.push(batch);
    return out;
  }

  /** Whatever is left, at the end of a read. */
  rest(): NormalizedEvent[] | undefined {
    return this.events.length > 0 ? this.events.splice(0) : undefined;
  }
}
