import type { Equipment, EventData, EventType, NormalizedEvent } from '../event.js';
import { booleanOf, isoTime, numberOf, toHours, toKm, toLitres, toPercent } from '../normalize.js';
import { equipmentOf, eventOf, type ReaderContext } from '../reader.js';
import { child, valueOf, type IsoNode } from './iso-xml.js';

/** ISO 15143-3 data elements read into normalized events: a machine's header and each reading element. */

/** The reading elements mapped to events: a page with none of them is an empty page. */
export const READINGS = new Set(['Location', 'CumulativeOperatingHours', 'CumulativeIdleHours', 'FuelUsed', 'FuelRemaining', 'DEFRemaining', 'Distance', 'CumulativeDistance', 'EngineStatus', 'EngineCondition', 'FaultCode', 'FaultCodes']);

export function isoEquipment(header: IsoNode | undefined, fallback?: Equipment): Equipment | undefined {
  if (header === undefined) return fallback;
  return (
    equipmentOf({
      id: valueOf(header, 'EquipmentID'),
      oem: valueOf(header, 'OEMName'),
      model: valueOf(header, 'Model'),
      serial: valueOf(header, 'SerialNumber'),
      pin: valueOf(header, 'PIN'),
    }) ?? fallback
  );
}

const numberIn = (node: IsoNode, name: string): number | undefined => numberOf(valueOf(node, name));

/** The events of one reading element (`Location`, `FuelUsed`, ...), none when its time is unknown or it is not mapped. */
export function readingEvents(ctx: ReaderContext, equipment: Equipment, node: IsoNode): (NormalizedEvent | undefined)[] {
  if (node.name === 'FaultCodes') return node.children.flatMap((c) => readingEvents(ctx, equipment, c));
  const at = isoTime(valueOf(node, 'datetime'));
  const ev = <T extends EventType>(type: T, data: EventData<T>): NormalizedEvent | undefined => eventOf(ctx, equipment, type, at, data);
  switch (node.name) {
    case 'Location': {
      const latitude = numberIn(node, 'Latitude');
      const longitude = numberIn(node, 'Longitude');
      if (latitude === undefined || longitude === undefined || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return [];
      return [ev('location', { latitude, longitude })];
    }
    case 'CumulativeOperatingHours':
    case 'CumulativeIdleHours': {
      const hours = toHours(numberIn(node, 'Hour'), 'h');
      return hours === undefined ? [] : [ev(node.name === 'CumulativeOperatingHours' ? 'operating_hours' : 'idle_hours', hours)];
    }
    case 'FuelUsed': {
      const litres = toLitres(numberIn(node, 'FuelConsumed'), valueOf(node, 'FuelUnits') ?? 'litre');
      return litres === undefined ? [] : [ev('fuel_used', litres)];
    }
    case 'FuelRemaining':
    case 'DEFRemaining': {
      const percent = toPercent(numberIn(node, 'Percent'), '%');
      return percent === undefined ? [] : [ev(node.name === 'FuelRemaining' ? 'fuel_remaining' : 'def_remaining', percent)];
    }
    case 'Distance':
    case 'CumulativeDistance': {
      const km = toKm(numberIn(node, 'Odometer'), valueOf(node, 'OdometerUnits') ?? 'kilometre');
      return km === undefined ? [] : [ev('distance', km)];
    }
    case 'EngineStatus': {
      const running = booleanOf(valueOf(node, 'Running'));
      return running === undefined ? [] : [ev('engine_status', { running })];
    }
    case 'EngineCondition': {
      const message = valueOf(node, 'Message')?.toLowerCase();
      const running = message === 'engineon' ? true : message === 'engineoff' ? false : undefined;
      return running === undefined ? [] : [ev('engine_status', { running })];
    }
    case 'FaultCode': {
      const code = valueOf(node, 'CodeIdentifier');
      if (code === undefined) return [];
      const severity = valueOf(node, 'CodeSeverity');
      const description = valueOf(node, 'CodeDescription');
      return [ev('fault', { code, ...(severity === undefined ? {} : { severity }), ...(description === undefined ? {} : { description }) })];
    }
    default:
      return [];
  }
}

/** One machine's snapshot: every reading under its `Equipment`, keyed by its header. */
export function equipmentEvents(ctx: ReaderContext, node: IsoNode): (NormalizedEvent | undefined)[] {
  const equipment = isoEquipment(child(node, 'EquipmentHeader'));
  if (equipment === undefined) return [];
  return node.children.filter((c) => c.name !== 'EquipmentHeader').flatMap((c) => readingEvents(ctx, equipment, c));
}

