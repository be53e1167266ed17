import type { z } from 'zod';
import type { AuthContext } from '../platform/auth/scopes.js';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint?: boolean;
}

/**
 * One MCP tool: a thin door onto a service function, like a REST route. The service enforces scopes;
 * `scope` only decides whether tools/list shows the tool to a key.
 */
export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  /** `<resource>_<action>`, e.g. `products_get`. */
  name: string;
  title: string;
  /** Written for an agent: what it does, when to use it, what comes back. */
  description: string;
  /** The scope a key needs to see (and call) the tool; a function for per-object scopes. */
  scope: string | ((auth: AuthContext) => boolean);
  /** The REST operation it mirrors (`GET /v1/products/:sku`), or null with a reason in the parity test. */
  rest: string | null;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  handler: (auth: AuthContext, input: z.infer<I>) => Promise<z.infer<O>>;
}

/** Keeps the input/output types tied together at the definition site. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(tool: ToolDefinition<I, O>): ToolDefinition {
  return tool;
}

export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true };
export const CREATES: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false };
export const UPDATES: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true };
