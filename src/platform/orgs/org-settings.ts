import { z } from 'zod';
import { firstIssueText } from '../core/issues.js';

/** An org's settings as stored: text values by setting name. */
export type StoredSettings = Readonly<Record<string, string>>;

/** Every declared setting's value for one org, by name (what `settings show` prints). */
export type OrgSettings = Readonly<Record<string, unknown>>;

/** One setting's schema: it reads the stored text (so numbers coerce), and carries its default and description. */
type SettingSchema = z.ZodDefault<z.ZodType>;

/** Declares one per-org setting: how its stored text reads, its value when none is stored, and what it means. */
export function setting<T extends z.ZodType>(schema: T, defaultValue: z.core.util.NoUndefined<z.output<T>>, description: string): z.ZodDefault<T> {
  return schema.default(defaultValue).describe(description);
}

/** What an operator is told about one setting. */
interface SettingInfo {
  /** `<area>.<name>` (`stock.low_threshold`). */
  name: string;
  description: string;
  default: unknown;
}

/** The settings one module declares, as OrgsService sees them. */
export interface OrgSettingsGroup<T extends OrgSettings = OrgSettings> {
  readonly settings: readonly SettingInfo[];
  /** This group's values: stored text read through each setting's schema, defaults where nothing is stored. */
  read(stored: StoredSettings): T;
  /** What is wrong with these stored values (a value its schema refuses, or the group's rule across them), or undefined. */
  problem(stored: StoredSettings): string | undefined;
}

/**
 * A module's per-org settings: names to `setting(...)` schemas, and an optional rule across them that answers a
 * message when the values break it ("backorder below low"). The rule sees the merged values a change would leave.
 */
export function defineOrgSettings<S extends Record<string, SettingSchema>>(
  shape: S,
  rule?: (values: z.output<z.ZodObject<S>>) => string | undefined,
): OrgSettingsGroup<z.output<z.ZodObject<S>>> {
  // Stored rows of other modules' settings pass through: an object schema strips keys it does not know.
  const schema = z.object(shape);
  return {
    settings: Object.entries(shape).map(([name, s]) => ({ name, description: s.description ?? '', default: s.parse(undefined) })),
    read: (stored) => schema.parse(stored),
    problem(stored) {
      const parsed = schema.safeParse(stored);
      if (!parsed.success) return `invalid setting ${firstIssueText(parsed.error.issues)}`;
      return rule?.(parsed.data);
    },
  };
}
