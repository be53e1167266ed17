import { z } from 'zod';
import { invalidInput } from '../core/errors.js';
import { invalidFromIssues } from '../core/issues.js';

/** A number as a query string writes it: decimal digits, an optional sign and fraction; no hex, exponent or spaces. */
const DECIMAL = /^-?\d+(?:\.\d+)?$/;

/** The number a decimal text writes, or undefined for any other text (`0x10`, `1e1`, ` 5`, ``). */
export function decimalNumber(text: string): number | undefined {
  return DECIMAL.test(text) ? Number(text) : undefined;
}

/** The schema under optional, default and nullable wrappers. */
function innermost(schema: z.ZodType | undefined): z.ZodType | undefined {
  let inner = schema;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodDefault || inner instanceof z.ZodNullable) inner = inner.def.innerType as z.ZodType;
  return inner;
}

const refusal = (name: string, message: string) => invalidInput(`invalid query: ${name}: ${message}`, [{ path: name, message }]);

/**
 * REST's query string as the operation's query schema types it, before the schema judges it (MCP arguments arrive
 * typed and skip this): a named parameter sent twice is refused by name, and a number parameter's text becomes a
 * number only when it is written in decimal. Parameters the schema does not name go on as they are (a strict schema
 * refuses them, an open one such as objects_query's filters reads them itself).
 */
export function typedQuery(schema: z.ZodObject | undefined, raw: Record<string, unknown>): Record<string, unknown> {
  if (schema === undefined) return raw;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    const field = Object.hasOwn(schema.shape, name) ? innermost(schema.shape[name] as z.ZodType) : undefined;
    if (field === undefined) {
      out[name] = value;
      continue;
    }
    if (Array.isArray(value) && !(field instanceof z.ZodArray)) throw refusal(name, `the parameter was repeated (${value.length} times): send it once`);
    if (field instanceof z.ZodNumber && typeof value === 'string') {
      const number = decimalNumber(value);
      if (number === undefined) throw refusal(name, `must be a decimal number, such as 25 (received ${JSON.stringify(value.slice(0, 40))})`);
      out[name] = number;
      continue;
    }
    out[name] = value;
  }
  return out;
}

const NO_PARAMETERS = z.strictObject({});

/** For a route that takes no query parameter (/healthz): any one is refused as the operations' strict queries refuse it. */
export function refuseQueryParameters(raw: unknown): void {
  const parsed = NO_PARAMETERS.safeParse(raw ?? {});
  if (!parsed.success) throw invalidFromIssues(parsed.error.issues, 'query');
}
