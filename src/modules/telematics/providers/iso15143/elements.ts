import type { Equipment, EventData, EventType, NormalizedEvent } from '../event.js';
import { booleanOf, isoTime, numberOf, toHours, toKm, toLitres, toMetres, toPercent, toTonnes } from '../normalize.js';
import { equipmentOf, eventOf, type ReadIssueKind, type ReaderContext } from '../reader.js';
import { valueOf, type IsoNode } from './iso-xml.js';
import { RawFields } from './raw.js';

/**
 * ISO 15143-3 data elements read into normalized events: a machine's header and each reading element. What cannot be
 * used is reported through the context's hook and, when it holds something the vendor measured, kept in the machine's
 * `equipment_seen` event's `raw`.
 */

/** Values vendors send for "unknown": never an id, a model or a time. Empty text is unknown already (valueOf). */
const PLACEHOLDER = /^(?:missing|unknown|n\/a|null|none|-+|0001-01-01(?:[T ].*)?)$/i;

export const isPlaceholder = (text: string): boolean => PLACEHOLDER.test(text.trim());

type Value = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];
const value = <T extends EventType>(type: T, data: EventData<T>): Value => ({ type, data }) as Value;

/** Why an element gave no event; `keep`: it holds what the vendor measured, so it goes to `raw`. */
interface Unused {
  kind: ReadIssueKind;
  detail: string;
  keep: boolean;
}

/** A reading element as read: its values at its time, and what of it could not be used. */
interface Reading {
  at: string | undefined;
  values: Value[];
  unused?: Unused;
}

const lower = (name: string): string => name.toLowerCase();

/** Reading elements by lower-case name (JSON feeds vary the case); `FaultCodes` holds `FaultCode`s. */
const READING_NAMES = new Set(
  [
    'Location',
    'CumulativeOperatingHours',
    'CumulativeIdleHours',
    'CumulativeIdleNonOperatingHours',
    'CumulativePowerTakeOffHours',
    'FuelUsed',
    'FuelUsedLast24',
    'FuelRemaining',
    'DEFRemaining',
    'FuelTankCapacity',
    'DEFTankCapacity',
    'Distance',
    'CumulativeDistance',
    'CumulativeLoadCount',
    'CumulativePayloadTotals',
    'EngineStatus',
    'EngineCondition',
    'FaultCode',
    'FaultCodes',
  ].map(lower),
);

/** A reading element of a snapshot or a time series (links, headers and the document's own fields are not). */
export const isReading = (node: IsoNode): boolean => READING_NAMES.has(lower(node.name));

/** Header fields read into Equipment; UnitInstallDateTime dates the telematics unit, not the machine, and is not sent. */
const HEADER_FIELDS = new Set(['EquipmentID', 'OEMName', 'Model', 'SerialNumber', 'PIN', 'EngineNumber', 'UnitInstallDateTime'].map(lower));

/**
 * A machine's header as Equipment, placeholders read as unknown (and reported); undefined when nothing is left to key
 * it by: two machines whose id, PIN and serial are all placeholders must not become one.
 */
export function isoEquipment(ctx: ReaderContext, header: IsoNode | undefined, fallback?: Equipment, raw?: RawFields): Equipment | undefined {
  if (header === undefined) return fallback;
  const known = (name: string): string | undefined => {
    const text = valueOf(header, name);
    if (text === undefined || !isPlaceholder(text)) return text;
    ctx.report?.('placeholder', `EquipmentHeader ${name} "${text}"`);
    return undefined;
  };
  for (const c of header.children) {
    if (HEADER_FIELDS.has(lower(c.name))) continue;
    ctx.report?.('unmapped_element', `EquipmentHeader ${c.name}`);
    raw?.add(c, `EquipmentHeader.${c.name}`);
  }
  const equipment = equipmentOf({ id: known('EquipmentID'), oem: known('OEMName'), model: known('Model'), serial: known('SerialNumber'), pin: known('PIN') });
  const engineNumber = known('EngineNumber');
  if (equipment === undefined) return fallback;
  return engineNumber === undefined ? equipment : { ...equipment, engine_number: engineNumber };
}

/** A converted measurement, or why there is none. */
type Measured<M> = { ok: M } | { unused: Unused };

/** Where a measurement is: the value's child, and its unit as a sibling child (with the standard's default) or implied by the name. */
interface Source {
  value: string;
  unit: string | { child: string; otherwise: string };
}

const unused = (kind: ReadIssueKind, detail: string, keep: boolean): { unused: Unused } => ({ unused: { kind, detail, keep } });

function measured<M>(node: IsoNode, sources: readonly Source[], convert: (v: number | undefined, unit: string) => M | undefined): Measured<M> {
  const source = sources.find((s) => valueOf(node, s.value) !== undefined);
  if (source === undefined) return unused('unmapped_element', `${node.name} without ${sources.map((s) => s.value).join(' or ')}`, true);
  const text = valueOf(node, source.value) ?? '';
  if (isPlaceholder(text)) return unused('placeholder', `${node.name} ${source.value} "${text}"`, false);
  const number = numberOf(text);
  if (number === undefined) return unused('unmapped_element', `${node.name} ${source.value} "${text.slice(0, 40)}" is not a number`, true);
  const unit = typeof source.unit === 'string' ? source.unit : (valueOf(node, source.unit.child) ?? source.unit.otherwise);
  const converted = convert(number, unit);
  return converted === undefined ? unused('unknown_unit', `${node.name} in "${unit.slice(0, 40)}"`, true) : { ok: converted };
}

const HOURS: readonly Source[] = [{ value: 'Hour', unit: 'h' }];
const FUEL: readonly Source[] = [
  { value: 'FuelConsumed', unit: { child: 'FuelUnits', otherwise: 'litre' } },
  // MiX-style feeds name the unit in the element.
  { value: 'FuelConsumedLitres', unit: 'litre' },
];
const PERCENT: readonly Source[] = [{ value: 'Percent', unit: '%' }];
const ODOMETER: readonly Source[] = [
  { value: 'Odometer', unit: { child: 'OdometerUnits', otherwise: 'kilometre' } },
  { value: 'OdometerKilometre', unit: 'kilometre' },
  { value: 'OdometerKilometres', unit: 'kilometre' },
  { value: 'OdometerMiles', unit: 'mile' },
];
const capacity = (element: string): readonly Source[] => [
  { value: 'Capacity', unit: { child: 'CapacityUnits', otherwise: 'litre' } },
  { value: element, unit: { child: `${element}Units`, otherwise: 'litre' } },
  { value: `${element}Litres`, unit: 'litre' },
];
const PAYLOAD: readonly Source[] = [{ value: 'Payload', unit: { child: 'PayloadUnits', otherwise: 'tonne' } }];

/** A reading element holding one measurement, read into its event type's data. */
type ReadValues = (node: IsoNode) => { values: Value[]; unused?: Unused };

function measurement<T extends EventType>(type: T, sources: readonly Source[], convert: (v: number | undefined, unit: string) => EventData<T> | undefined): ReadValues {
  return (node) => {
    const m = measured(node, sources, convert);
    return 'ok' in m ? { values: [value(type, m.ok)] } : { values: [], unused: m.unused };
  };
}

const MEASUREMENTS: Readonly<Record<string, ReadValues>> = {
  cumulativeoperatinghours: measurement('operating_hours', HOURS, toHours),
  cumulativeidlehours: measurement('idle_hours', HOURS, toHours),
  cumulativeidlenonoperatinghours: measurement('idle_non_operating_hours', HOURS, toHours),
  cumulativepowertakeoffhours: measurement('pto_hours', HOURS, toHours),
  fuelused: measurement('fuel_used', FUEL, toLitres),
  fuelusedlast24: measurement('fuel_used_last_24h', FUEL, toLitres),
  fuelremaining: measurement('fuel_remaining', PERCENT, toPercent),
  defremaining: measurement('def_remaining', PERCENT, toPercent),
  fueltankcapacity: measurement('fuel_tank_capacity', capacity('FuelTankCapacity'), toLitres),
  deftankcapacity: measurement('def_tank_capacity', capacity('DEFTankCapacity'), toLitres),
  distance: measurement('distance', ODOMETER, toKm),
  cumulativedistance: measurement('distance', ODOMETER, toKm),
  cumulativepayloadtotals: measurement('payload_total', PAYLOAD, toTonnes),
};

/** The values of one reading element at whatever time it has; `unused` says what of it could not be read. */
function valuesOf(node: IsoNode): { values: Value[]; unused?: Unused } {
  const name = lower(node.name);
  const read = MEASUREMENTS[name];
  if (read !== undefined) return read(node);
  switch (name) {
    case 'location': {
      const latitude = numberOf(valueOf(node, 'Latitude'));
      const longitude = numberOf(valueOf(node, 'Longitude'));
      if (latitude === undefined || longitude === undefined || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) {
        return { values: [], unused: { kind: 'unmapped_element', detail: 'Location without a readable Latitude and Longitude', keep: true } };
      }
      if (valueOf(node, 'Altitude') === undefined) return { values: [value('location', { latitude, longitude })] };
      const altitude = measured(node, [{ value: 'Altitude', unit: { child: 'AltitudeUnits', otherwise: 'metre' } }], toMetres);
      // A position without its altitude is still a position.
      return 'ok' in altitude ? { values: [value('location', { latitude, longitude, altitude: altitude.ok })] } : { values: [value('location', { latitude, longitude })], unused: altitude.unused };
    }
    case 'cumulativeloadcount': {
      const count = numberOf(valueOf(node, 'Count'));
      return count === undefined || !Number.isInteger(count) || count < 0
        ? { values: [], unused: { kind: 'unmapped_element', detail: 'CumulativeLoadCount without a whole Count', keep: true } }
        : { values: [value('load_count', { count })] };
    }
    case 'enginestatus': {
      const running = booleanOf(valueOf(node, 'Running'));
      return running === undefined ? { values: [], unused: { kind: 'unmapped_element', detail: 'EngineStatus without a readable Running', keep: true } } : { values: [value('engine_status', { running })] };
    }
    case 'enginecondition': {
      const message = valueOf(node, 'Message')?.toLowerCase();
      const running = message === 'engineon' ? true : message === 'engineoff' ? false : undefined;
      return running === undefined ? { values: [], unused: { kind: 'unmapped_element', detail: `EngineCondition "${(message ?? '').slice(0, 40)}"`, keep: true } } : { values: [value('engine_status', { running })] };
    }
    case 'faultcode': {
      const code = valueOf(node, 'CodeIdentifier');
      if (code === undefined) return { values: [], unused: { kind: 'unmapped_element', detail: 'FaultCode without CodeIdentifier', keep: true } };
      const severity = valueOf(node, 'CodeSeverity');
      const description = valueOf(node, 'CodeDescription');
      return { values: [value('fault', { code, ...(severity === undefined ? {} : { severity }), ...(description === undefined ? {} : { description }) })] };
    }
    default:
      return { values: [], unused: { kind: 'unmapped_element', detail: node.name, keep: true } };
  }
}

/** One reading element read at its own time: a time that is a placeholder is unknown, and the reading with it. */
function readingOf(node: IsoNode): Reading {
  const { values, unused: partly } = valuesOf(node);
  // An element nobody maps is kept as it is, whatever its time.
  if (!isReading(node)) return { at: undefined, values, ...(partly === undefined ? {} : { unused: partly }) };
  const stamp = valueOf(node, 'datetime');
  if (stamp === undefined) return { at: undefined, values: [], unused: { kind: 'unmapped_element', detail: `${node.name} without datetime`, keep: true } };
  const at = isoTime(stamp);
  if (at === undefined) {
    return isPlaceholder(stamp)
      ? { at, values: [], unused: { kind: 'placeholder', detail: `${node.name} datetime "${stamp.slice(0, 40)}"`, keep: false } }
      : { at, values: [], unused: { kind: 'unmapped_element', detail: `${node.name} datetime "${stamp.slice(0, 40)}" is not a time`, keep: true } };
  }
  return { at, values, ...(partly === undefined ? {} : { unused: partly }) };
}

/** The element and its `FaultCode`s one by one (a `FaultCodes` list is a container, not a reading). */
const readingNodes = (node: IsoNode): IsoNode[] => (lower(node.name) === 'faultcodes' ? node.children.flatMap(readingNodes) : [node]);

/** A reading element's events, what of it could not be used reported (and kept in `raw` when given one). */
function eventsOf(ctx: ReaderContext, equipment: Equipment, node: IsoNode, raw?: RawFields): { events: (NormalizedEvent | undefined)[]; readings: number } {
  const events: (NormalizedEvent | undefined)[] = [];
  let readings = 0;
  for (const item of readingNodes(node)) {
    const reading = readingOf(item);
    if (reading.unused !== undefined) {
      ctx.report?.(reading.unused.kind, reading.unused.detail);
      if (reading.unused.keep) raw?.add(item);
    }
    readings += reading.values.length;
    for (const v of reading.values) events.push(eventOf(ctx, equipment, v.type, reading.at, v.data));
  }
  return { events, readings };
}

/** The events of one reading element of a time series (`Location`, `FuelUsed`, ...); what it cannot use is reported. */
export function readingEvents(ctx: ReaderContext, equipment: Equipment, node: IsoNode): (NormalizedEvent | undefined)[] {
  return eventsOf(ctx, equipment, node).events;
}

/**
 * One machine's snapshot: every reading under its `Equipment`, keyed by its header. A machine with no reading, or with
 * something unused worth keeping, also gets an `equipment_seen` event at the snapshot's time carrying that in `raw`.
 */
export function equipmentEvents(ctx: ReaderContext, node: IsoNode, snapshotAt: string | undefined): (NormalizedEvent | undefined)[] {
  const header = node.children.find((c) => lower(c.name) === 'equipmentheader');
  const raw = new RawFields();
  const equipment = isoEquipment(ctx, header, undefined, raw);
  if (equipment === undefined) {
    ctx.report?.('placeholder', header === undefined ? 'Equipment without EquipmentHeader (skipped)' : 'Equipment without a usable EquipmentID, PIN or SerialNumber (skipped)');
    return [];
  }
  const events: (NormalizedEvent | undefined)[] = [];
  let readings = 0;
  for (const c of node.children) {
    if (c === header) continue;
    const read = eventsOf(ctx, equipment, c, raw);
    events.push(...read.events);
    readings += read.readings;
  }
  if (readings > 0 && raw.empty) return events;
  if (snapshotAt === undefined) {
    ctx.report?.('unmapped_element', `Equipment ${equipment.id} seen in a snapshot without snapshotTime`);
    return events;
  }
  const seen = eventOf(ctx, equipment, 'equipment_seen', snapshotAt, { readings });
  const kept = raw.value();
  return [...events, seen === undefined || kept === undefined ? seen : { ...seen, raw: kept }];
}
