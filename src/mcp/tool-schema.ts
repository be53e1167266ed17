import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';

type JsonSchemaOptions = Parameters<StandardSchemaWithJSON['~standard']['jsonSchema']['input']>[0];

/**
 * The zod schema as the SDK's Standard Schema, with its JSON Schema converted once per process:
 * every /mcp request builds a fresh server, and converting each tool's schemas per request would dominate its cost.
 */
export function cachedJsonSchema<T extends z.ZodType>(schema: T): StandardSchemaWithJSON<z.input<T>, z.output<T>> {
  const std = schema['~standard'];
  const cache = new Map<string, Record<string, unknown>>();
  const convert = (io: 'input' | 'output') => (options: JsonSchemaOptions): Record<string, unknown> => {
    const key = `${io}:${options.target}`;
    const hit = cache.get(key);
    if (hit) return hit;
    const json = std.jsonSchema[io](options);
    cache.set(key, json);
    return json;
  };
  return { '~standard': { ...std, jsonSchema: { input: convert('input'), output: convert('output') } } };
}
