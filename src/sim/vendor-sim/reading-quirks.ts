import { fleetOf, type Machine } from './fleet.js';

/**
 * Readings as real fleets send them, switched per fleet with `sim.setFleet(provider, account, { readings })`. ISO
 * 15143-3 snapshots and the aggregator and TPMS lists honour them (the OEM APIs do not yet); without any, every machine reports on time as the
 * simulator always has.
 */
export interface ReadingQuirks {
  /** One machine (by index) reports late: its latest reading is this many minutes older than the others' would be. */
  late?: { machine: number; minutes: number };
  /** A machine joins the fleet after the others, listed last, its one reading taken this many hours before now. */
  added?: { hoursAgo: number };
  /** One machine's device clock runs ahead: its readings are stamped this many minutes after they were taken. */
  clockAhead?: { machine: number; minutes: number };
}

const MINUTE_MS = 60_000;

/** The machines the vendor lists: the fleet, and the added one after it (the same machine on every call). */
export function listedMachines(provider: string, fleet: readonly Machine[], quirks: ReadingQuirks): readonly Machine[] {
  if (quirks.added === undefined) return fleet;
  const added = fleetOf(provider, fleet.length + 1).at(-1);
  return added === undefined ? fleet : [...fleet, added];
}

/** When a machine's latest reading was taken (its values) and the time its device stamped on it. */
export function readingTimes(m: Machine, onTime: Date, now: Date, fleetSize: number, quirks: ReadingQuirks): { taken: Date; stamped: Date } {
  let taken = onTime;
  if (quirks.late?.machine === m.index) taken = new Date(onTime.getTime() - quirks.late.minutes * MINUTE_MS);
  if (quirks.added !== undefined && m.index === fleetSize) taken = new Date(now.getTime() - quirks.added.hoursAgo * 60 * MINUTE_MS);
  const ahead = quirks.clockAhead?.machine === m.index ? quirks.clockAhead.minutes * MINUTE_MS : 0;
  return { taken, stamped: new Date(taken.getTime() + ahead) };
}
