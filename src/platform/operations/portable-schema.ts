type Json = Record<string, unknown>;

/** Keywords that say what a value is; a schema with none of them accepts anything. */
const ASSERTIONS = ['type', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', 'not', '$ref', 'properties', 'items', 'pattern', 'format'];

function isJson(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const acceptsAnything = (schema: Json) => !ASSERTIONS.some((k) => k in schema);

/**
 * JSON Schema in the spelling the most tool and client dialects read alike (the MCP Inspector's portability check):
 * a nullable `type: [T, "null"]` becomes `anyOf` of single types, and an `additionalProperties` or `items` that
 * constrains nothing is left out (it is the default) instead of written as `{}`.
 */
export function portableSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(portableSchema);
  if (!isJson(value)) return value;
  const out: Json = {};
  for (const [key, item] of Object.entries(value)) {
    if ((key === 'additionalProperties' || key === 'items') && isJson(item) && acceptsAnything(item) && Object.keys(item).length === 0) continue;
    out[key] = key === 'properties' || key === '$defs' ? mapValues(item, portableSchema) : portableSchema(item);
  }
  const type = out.type;
  if (Array.isArray(type) && type.length > 1) {
    // Each branch keeps the constraints that apply to its type (a string's maxLength, a number's minimum).
    const { type: _type, description, title, default: fallback, ...constraints } = out;
    return {
      ...(title === undefined ? {} : { title }),
      ...(description === undefined ? {} : { description }),
      ...(fallback === undefined ? {} : { default: fallback }),
      anyOf: (type as unknown[]).map((t) => (t === 'null' ? { type: t } : { type: t, ...constraintsFor(String(t), constraints) })),
    };
  }
  return out;
}

const KEYWORDS_OF: Record<string, string[]> = {
  string: ['minLength', 'maxLength', 'pattern', 'format', 'enum'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'enum'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'enum'],
  array: ['items', 'minItems', 'maxItems', 'uniqueItems'],
  object: ['properties', 'required', 'additionalProperties', 'propertyNames'],
};

function constraintsFor(type: string, constraints: Json): Json {
  const keep = KEYWORDS_OF[type] ?? [];
  return Object.fromEntries(Object.entries(constraints).filter(([k]) => keep.includes(k)));
}

function mapValues(value: unknown, fn: (v: unknown) => unknown): unknown {
  if (!isJson(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fn(v)]));
}
