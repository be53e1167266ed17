import { z } from 'zod';
import { invalidInput } from '../http/errors.js';

/** Every per-org setting, its type and default. Modules read settings only through this schema. */
const settingsSchema = z.object({
  'stock.low_threshold': z.coerce.number().int().default(8),
  'stock.backorder_threshold': z.coerce.number().int().default(0),
});

export type OrgSettings = z.infer<typeof settingsSchema>;
export type SettingKey = keyof OrgSettings;

export const SETTING_KEYS = Object.keys(settingsSchema.shape) as SettingKey[];

export function resolveSettings(stored: Record<string, string>): OrgSettings {
  return settingsSchema.parse(stored);
}

/** Validates `key=value` assignments against the schema and the merged result's invariants. */
export function validateAssignments(current: Record<string, string>, assignments: string[]): Record<string, string> {
  const changes: Record<string, string> = {};
  for (const a of assignments) {
    const eq = a.indexOf('=');
    if (eq <= 0) throw invalidInput(`expected key=value, got "${a}"`);
    const key = a.slice(0, eq).trim();
    const value = a.slice(eq + 1).trim();
    if (!(SETTING_KEYS as string[]).includes(key)) throw invalidInput(`unknown setting: ${key} (known: ${SETTING_KEYS.join(', ')})`);
    changes[key] = value;
  }
  const merged = settingsSchema.safeParse({ ...current, ...changes });
  if (!merged.success) {
    const issue = merged.error.issues[0];
    throw invalidInput(`invalid setting ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  if (merged.data['stock.backorder_threshold'] >= merged.data['stock.low_threshold']) {
    throw invalidInput('stock.backorder_threshold must be below stock.low_threshold');
  }
  return changes;
}
