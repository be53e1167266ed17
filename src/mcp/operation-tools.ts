import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AuthContext } from '../platform/auth/scopes.js';
import { hasScope } from '../platform/auth/scopes.js';
import { redactKeys } from '../platform/http/access-log.js';
import { toAppError } from '../platform/http/error-handler.js';
import { type AppError, docUrlOf, ERROR_STATUS } from '../platform/core/errors.js';
import { invalidFromIssues } from '../platform/core/issues.js';
import { checkKeyFormat, IDEMPOTENCY_KEY_PARAM } from '../platform/operations/idempotency.js';
import { type OperationInvoker, refusalError } from '../platform/operations/invoke.js';
import { portableSchema } from '../platform/operations/portable-schema.js';
import { type Operation, type RequestParts, takesIdempotencyKey } from '../platform/operations/operation.js';
import type { McpCaller } from './caller.js';

/** The JSON Schema dialect of tool listings. */
const JSON_SCHEMA_TARGET = 'draft-2020-12';

const idempotencyKeyArg = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'idempotency_key must be 1-255 printable ASCII characters without spaces')
  .describe(
    'Optional. Makes a retry safe: the first call with this key runs; the same call again within 24 h returns the stored ' +
      'result instead of running twice (use a fresh key per intended change). Shared with the REST Idempotency-Key.',
  );

/** What a failed call carries in structuredContent, beside the `<code>: <message>` text. */
const toolErrorSchema = z
  .strictObject({
    code: z.enum(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS, ...(keyof typeof ERROR_STATUS)[]]).describe('stable error code, as in REST'),
    status: z.number().int().describe('the HTTP status REST answers with'),
    message: z.string().describe('what went wrong, for a person'),
    details: z
      .union([z.array(z.looseObject({})), z.looseObject({})])
      .optional()
      .describe('machine-readable specifics: the invalid arguments ([{ path, message }]), the allowed next states, ...'),
    param: z.string().optional().describe('the argument at fault, when one is: `lines[2].sku`, `status`, `idempotency_key`'),
    doc_url: z.string().describe("where the code is explained: `docs/errors.md#<code>` in the gateway's source"),
  })
  .meta({ id: 'ToolError' });

/** An MCP tool generated from an operation. */
export interface OperationTool {
  operation: Operation;
  listing: Tool;
  call(caller: McpCaller, args: Record<string, unknown>): Promise<CallToolResult>;
}

function keysOf(schema: z.ZodType | undefined): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/** The tool's arguments: the operation's path, query and body fields merged into one object (or the MCP shape it declares). */
function mergedInput(op: Operation): z.ZodObject {
  if (op.mcp) return op.mcp.input;
  const body = op.body;
  if (body !== undefined && !(body instanceof z.ZodObject)) throw new Error(`${op.name}: a non-object body needs an mcp shape`);
  const shape: z.ZodRawShape = {
    ...op.params?.shape,
    ...op.query?.shape,
    ...(body instanceof z.ZodObject ? body.shape : {}),
    ...(op.rawBody ? { [op.rawBody.field]: z.string().min(1).describe(op.rawBody.description) } : {}),
  };
  const names = [...keysOf(op.params), ...keysOf(op.query), ...keysOf(body), ...(op.rawBody ? [op.rawBody.field] : [])];
  if (new Set(names).size !== names.length) throw new Error(`${op.name}: path, query and body fields must have distinct names`);
  return z.strictObject(shape);
}

/** Splits tool arguments back into the REST parts; a name no part knows goes where REST would report it. */
function splitArgs(op: Operation, args: Record<string, unknown>): RequestParts {
  if (op.mcp) {
    // An operation's own MCP shape is judged by its own schema before it is mapped back to REST's parts.
    const parsed = op.mcp.input.safeParse(args);
    if (!parsed.success) throw invalidFromIssues(parsed.error.issues, 'arguments');
    return op.mcp.toParts(parsed.data);
  }
  const params: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  const paramKeys = new Set(keysOf(op.params));
  const queryKeys = new Set(keysOf(op.query));
  const strayTo = op.body ? body : query;
  for (const [name, value] of Object.entries(args)) {
    if (paramKeys.has(name)) params[name] = value;
    else if (queryKeys.has(name)) query[name] = value;
    else if (op.rawBody?.field !== name) strayTo[name] = value;
  }
  if (op.rawBody) {
    const raw = args[op.rawBody.field];
    return { params, query, body: typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw === undefined ? undefined : Buffer.from(JSON.stringify(raw)) };
  }
  return { params, query, body: op.body ? body : undefined };
}

function objectJsonSchema(schema: z.ZodType, io: 'input' | 'output', what: string): Tool['inputSchema'] {
  const json = z.toJSONSchema(schema, { target: JSON_SCHEMA_TARGET, io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  if (json.type !== undefined && json.type !== 'object') throw new Error(`${what} must describe an object`);
  return { type: 'object', ...(portableSchema(json) as Record<string, unknown>) };
}

/** The argument an error names: REST's Idempotency-Key header is the `idempotency_key` argument here. */
const argumentOf = (param: string): string => (param === IDEMPOTENCY_KEY_PARAM ? 'idempotency_key' : param);

function errorResult(err: AppError): CallToolResult {
  const error = {
    code: err.code,
    status: err.status,
    message: err.message,
    ...(err.details === undefined ? {} : { details: err.details }),
    ...(err.param === undefined ? {} : { param: argumentOf(err.param) }),
    doc_url: docUrlOf(err.code),
  };
  return { content: [{ type: 'text', text: `${err.code}: ${err.message}` }], structuredContent: error, isError: true };
}

export function visibleTo(auth: AuthContext, op: Operation): boolean {
  return typeof op.scope === 'string' ? hasScope(auth, op.scope) : op.scope.visibleTo(auth);
}

/** Builds an operation's tool once, at start-up: its listing and the call that goes through the shared invoker. */
export function toolOf(op: Operation, invoker: OperationInvoker): OperationTool {
  const keyed = takesIdempotencyKey(op);
  const input = mergedInput(op);
  const listed = keyed ? input.extend({ idempotency_key: idempotencyKeyArg.optional() }) : input;
  const listing: Tool = {
    name: op.name,
    title: op.summary,
    description: `${op.description}\n\nRequired scope: ${typeof op.scope === 'string' ? op.scope : op.scope.describe}.`,
    inputSchema: objectJsonSchema(listed, 'input', `${op.name} input`),
    // Either the result or, with isError, the error: clients that check structuredContent against it accept both.
    outputSchema: objectJsonSchema(z.union([op.output, toolErrorSchema]), 'output', `${op.name} output`),
    annotations: {
      title: op.summary,
      readOnlyHint: op.hints.readOnly,
      destructiveHint: op.hints.destructive,
      idempotentHint: op.hints.idempotent,
      openWorldHint: op.hints.openWorld,
    },
  };
  return {
    operation: op,
    listing,
    async call(caller, rawArgs) {
      try {
        // Read-only tools do not list idempotency_key: there it is an unknown argument like any other.
        const { idempotency_key: key, ...rest } = rawArgs;
        const args = keyed ? rest : rawArgs;
        const { outcome } = await invoker.invoke(op, caller.auth, splitArgs(op, args), !keyed || key === undefined ? undefined : checkKeyFormat(key), 'mcp');
        if ('error' in outcome) return errorResult(refusalError(outcome));
        return { content: [{ type: 'text', text: JSON.stringify(outcome.output) }], structuredContent: outcome.output };
      } catch (err) {
        const appErr = toAppError(err);
        // toAppError already reduces an unexpected error to "internal error"; the real one goes to the log only.
        if (appErr.status >= 500) caller.log.error({ err, tool: op.name }, 'mcp tool failed');
        else caller.log.info({ code: appErr.code, tool: op.name }, redactKeys(appErr.message));
        return errorResult(appErr);
      }
    },
  };
}
