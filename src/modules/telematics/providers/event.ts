import { createHash } from 'node:crypto';
import { z } from 'zod';

/** One reading of one machine, whatever vendor it came from: what the poller hands to the hub as `telematics.event`. */

export type EventType =
  | 'location'
  | 'operating_hours'
  | 'idle_hours'
  | 'fuel_used'
  | 'fuel_remaining'
  | 'def_remaining'
  | 'engine_status'
  | 'distance'
  | 'fault'
  | 'tire_pressure'
  | 'tire_temperature'
  | 'tpms_alert'
  | 'pto_hours'
  | 'idle_non_operating_hours'
  | 'fuel_used_last_24h'
  | 'fuel_tank_capacity'
  | 'def_tank_capacity'
  | 'load_count'
  | 'payload_total'
  | 'equipment_seen';

/** The units events carry; `source` keeps what the vendor sent. */
type Unit = 'h' | 'L' | 'km' | '%' | 'kPa' | '°C' | 'm' | 't';

const source = z.object({ value: z.number(), unit: z.string() });
const measurement = <U extends Unit>(...units: [U, ...U[]]) => z.object({ value: z.number(), unit: z.enum(units), source });
const position = z.string().min(1);

const equipmentSchema = z.object({
  /** Stable per machine: the vendor's equipment id, else its PIN or serial number. */
  id: z.string().min(1),
  oem: z.string().nullable(),
  model: z.string().nullable(),
  serial: z.string().nullable(),
  pin: z.string().nullable(),
  /** Only when the vendor says it (ISO 15143-3 headers). */
  engine_number: z.string().min(1).optional(),
});
export type Equipment = z.infer<typeof equipmentSchema>;

const pressure = measurement('kPa');

/**
 * `data` per type. fuel_remaining is a percentage, or litres when the vendor gives only a volume (tank size unknown).
 * equipment_seen: a machine in a snapshot with no reading to send, or with something the mapping could not use (in `raw`).
 */
const eventDataSchemas = {
  location: z.object({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180), altitude: measurement('m').optional() }),
  operating_hours: measurement('h'),
  idle_hours: measurement('h'),
  fuel_used: measurement('L'),
  fuel_remaining: measurement('%', 'L'),
  def_remaining: measurement('%'),
  engine_status: z.object({ running: z.boolean() }),
  distance: measurement('km'),
  fault: z.object({ code: z.string().min(1), severity: z.string().optional(), description: z.string().optional() }),
  tire_pressure: pressure.extend({ position }),
  tire_temperature: measurement('°C').extend({ position }),
  tpms_alert: z.object({ position, code: z.string().min(1), severity: z.string().optional(), pressure: pressure.optional() }),
  pto_hours: measurement('h'),
  idle_non_operating_hours: measurement('h'),
  fuel_used_last_24h: measurement('L'),
  fuel_tank_capacity: measurement('L'),
  def_tank_capacity: measurement('L'),
  load_count: z.object({ count: z.int().nonnegative() }),
  payload_total: measurement('t'),
  equipment_seen: z.object({ readings: z.int().nonnegative() }),
} satisfies Record<EventType, z.ZodType>;
export type EventData<T extends EventType> = z.infer<(typeof eventDataSchemas)[T]>;

const isoUtc = z.iso.datetime({ precision: 3 });

/** What the vendor sent that no field holds, as `name` or `name.child` / `name@attribute` paths to their text; bounded. */
const rawSchema = z.object({ fields: z.record(z.string(), z.string()), truncated: z.boolean() });
export type Raw = z.infer<typeof rawSchema>;

const base = {
  id: z.string().regex(/^tev_[0-9a-z]{26}$/),
  connection_id: z.string().min(1),
  provider: z.string().min(1),
  equipment: equipmentSchema,
  observed_at: isoUtc,
  raw: rawSchema.optional(),
};

const variant = <T extends EventType>(type: T) => z.object({ ...base, type: z.literal(type), data: eventDataSchemas[type] });

export const normalizedEventSchema = z.discriminatedUnion('type', [
  variant('location'),
  variant('operating_hours'),
  variant('idle_hours'),
  variant('fuel_used'),
  variant('fuel_remaining'),
  variant('def_remaining'),
  variant('engine_status'),
  variant('distance'),
  variant('fault'),
  variant('tire_pressure'),
  variant('tire_temperature'),
  variant('tpms_alert'),
  variant('pto_hours'),
  variant('idle_non_operating_hours'),
  variant('fuel_used_last_24h'),
  variant('fuel_tank_capacity'),
  variant('def_tank_capacity'),
  variant('load_count'),
  variant('payload_total'),
  variant('equipment_seen'),
]);
export type NormalizedEvent = z.infer<typeof normalizedEventSchema>;

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * `tev_` + 10 Crockford base32 chars of the observation time (ms) + 16 of a SHA-256 over the reading's identity, the
 * shape of the platform's ids (time-sortable) but deterministic, so a replayed reading gets the same id and the hub
 * drops the repeat. `discriminator` separates readings of one machine, type and time: the wheel position of tire
 * events, the code of faults and alerts.
 */
export function eventId(connectionId: string, equipmentId: string, type: EventType, observedAt: string, discriminator?: string): string {
  let time = Date.parse(observedAt);
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = CROCKFORD.charAt(time % 32) + head;
    time = Math.floor(time / 32);
  }
  const digest = createHash('sha256').update(JSON.stringify([connectionId, equipmentId, type, observedAt, discriminator ?? null])).digest();
  let tail = '';
  for (let i = 0; i < 16; i++) tail += CROCKFORD.charAt((digest[i] ?? 0) % 32);
  return `tev_${head}${tail}`;
}
