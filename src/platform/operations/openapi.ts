import { z } from 'zod';
import type { ScopeCatalog } from '../auth/scopes.js';
import { errorEnvelope } from '../http/envelope.js';
import { ERROR_STATUS, type ErrorCode } from '../core/errors.js';
import { type Audience, audienceOf, type Operation, scopeText, takesIdempotencyKey } from './operation.js';
import { errorExample } from './error-examples.js';
import { portableSchema } from './portable-schema.js';

type Json = Record<string, unknown>;

export interface OpenApiTag {
  name: string;
  description: string;
}

export interface OpenApiOptions {
  title: string;
  version: string;
  description: string;
  tags: OpenApiTag[];
  operations: Operation[];
  /** Routes outside the operation list (health, metrics): written by hand, path -> path item. */
  extraPaths: Record<string, Json>;
  /** The scopes keys are granted: listed in the API key scheme's description. */
  scopes: ScopeCatalog;
  /** The events POSTed to subscribers' URLs: the document's `webhooks`. */
  webhooks?: readonly WebhookDoc[];
}

/**
 * One event type sent to subscribers (OpenAPI 3.1 `webhooks`): the JSON Schema of its body and an example, written
 * out or taken from an operation's example response (`from`: the operation, `field`: its key there, `extra`: merged in),
 * so the example of an event carrying a resource is the one its GET shows.
 */
export interface WebhookDoc {
  type: string;
  tag: string;
  summary: string;
  description: string;
  /** Headers each delivery carries (name -> header object). */
  headers: Record<string, Json>;
  body: Json;
  example: { body: Json } | { from: string; field: string; wrap(resource: unknown): Json };
}

function webhookExample(doc: WebhookDoc, operations: readonly Operation[]): Json {
  const { example } = doc;
  if ('body' in example) return example.body;
  const response: Record<string, unknown> = operations.find((o) => o.name === example.from)?.example.response ?? {};
  const resource = response[example.field];
  if (resource === undefined) throw new Error(`webhook ${doc.type}: no example ${example.field} in operation ${example.from}`);
  return example.wrap(resource);
}

function webhookObject(doc: WebhookDoc, operations: readonly Operation[]): Json {
  return {
    post: {
      operationId: `webhook_${doc.type.replaceAll('.', '_')}`,
      tags: [doc.tag],
      summary: doc.summary,
      description: doc.description,
      security: [],
      parameters: Object.entries(doc.headers).map(([name, header]) => ({ name, in: 'header', required: true, ...header })),
      requestBody: { required: true, content: { 'application/json': { schema: doc.body, example: webhookExample(doc, operations) } } },
      responses: {
        '200': { description: 'Any 2xx acknowledges the delivery. 408, 429 (Retry-After honoured), 5xx, timeouts and refused connections are retried.' },
        '400': { description: 'Any other status fails the delivery at once (no redirect is followed).' },
      },
    },
  };
}

/** The API key scheme's description, with every scope a key can be granted and what it opens. */
function apiKeyDescription(scopes: ScopeCatalog): string {
  const lines = [
    ...scopes.static.map((scope) => `- \`${scope}\`: ${scopes.described[scope] ?? ''}`),
    ...scopes.patterns.map((p) => `- \`${p.text}\`: ${p.description}`),
  ];
  return ['An API key (`trk_live_…`) issued by the operator, with scopes (`all` grants every static one):', ...lines].join('\n');
}

const REF_PREFIX = '#/components/schemas/';
const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted' };

const INVALID_INPUT = 'The input is invalid: `param` names the first field at fault, `details` lists each problem as `{ path, message }`.';

/** Errors any call through a door can meet, whatever the operation. */
const COMMON_ERRORS: Record<Audience, Partial<Record<ErrorCode, string>>> = {
  api: {
    invalid_input: INVALID_INPUT,
    unauthorized: 'No API key, or one that is malformed, unknown, expired or revoked.',
    missing_scope: 'The key lacks the scope this operation needs (`missing scope: <scope>`).',
    rate_limited: "The key's requests per minute are used up; retry after `Retry-After` seconds.",
  },
  operator: {
    invalid_input: INVALID_INPUT,
    unauthorized: 'No admin token, or not the one this gateway was given (GATEWAY_ADMIN_TOKEN).',
  },
  public: {
    invalid_input: INVALID_INPUT,
    forbidden_origin: 'A browser page whose origin is not on the allowlist, or a browser request without an Origin.',
    rate_limited: "This client's requests per minute are used up; retry after `Retry-After` seconds.",
  },
  portal: {
    invalid_input: INVALID_INPUT,
    unauthorized: 'No portal key in X-Portal-Key, or one that is malformed, unknown or revoked (an API key is refused here).',
    forbidden_origin: "A browser page whose origin is not on the portal key's list, or a browser request without an Origin.",
    rate_limited: "The portal key's requests per minute, or this client's on the key, are used up; retry after `Retry-After` seconds.",
  },
};

/** How each door authenticates, as OpenAPI security requirements. */
const SECURITY: Record<Audience, Json[]> = { api: [{ bearerAuth: [] }], operator: [{ adminToken: [] }], public: [], portal: [{ portalKey: [] }] };

const KEYED_ERRORS: Partial<Record<ErrorCode, string>> = {
  idempotency_in_flight: 'A call with this Idempotency-Key is still running.',
  idempotency_key_reused: 'The Idempotency-Key was already used with a different request (`param`: `Idempotency-Key`).',
};

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Refused before the limiter counts the request, so their answers carry no rate-limit fields. */
const BEFORE_RATE_LIMIT: ReadonlySet<ErrorCode> = new Set(['unauthorized', 'forbidden_origin']);

const HEADERS: Record<string, Json> = {
  'X-Request-Id': { description: 'The request id: yours when you sent a valid one, else generated. Also `request_id` in errors.', schema: { type: 'string' } },
  'RateLimit-Policy': {
    description:
      'The rate-limit policies this request counted against (IETF httpapi RateLimit header fields draft): a list of ' +
      '`"<policy>";q=<requests>;w=<window seconds>`, `"key"` (the key\'s budget) and/or `"ip"` (the client\'s).',
    schema: { type: 'string', pattern: '^"(key|ip)";q=\\d+;w=\\d+(, "(key|ip)";q=\\d+;w=\\d+)*$' },
    example: '"key";q=600;w=60',
  },
  RateLimit: {
    description:
      'Where each of those policies stands: `"<policy>";r=<requests left now>;t=<seconds>`. Spend the `r` requests and ' +
      'the next one is admitted after `t` seconds (a sliding window: `t` can exceed the window).',
    schema: { type: 'string', pattern: '^"(key|ip)";r=\\d+;t=\\d+(, "(key|ip)";r=\\d+;t=\\d+)*$' },
    example: '"key";r=599;t=1',
  },
  'Retry-After': { description: 'Seconds to wait before retrying: waited, the next request is admitted.', schema: { type: 'integer' } },
  Allow: { description: 'The methods this path takes.', schema: { type: 'string' }, example: 'GET' },
  'Idempotent-Replayed': { description: '`true` when this is the stored answer to an earlier call with the same Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
  'WWW-Authenticate': { description: 'The authentication scheme: `Bearer`.', schema: { type: 'string' } },
};

/** Zod -> JSON Schema, with named schemas (`.meta({ id })`) moved to components and referenced from there. */
class SchemaCollector {
  readonly components: Record<string, Json> = {};

  convert(schema: z.ZodType, io: 'input' | 'output'): Json {
    const json = portableSchema(z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' })) as Json;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    for (const [id, def] of Object.entries(defs)) this.components[id] ??= rewriteRefs(def) as Json;
    delete json.$defs;
    delete json.$schema;
    return rewriteRefs(json) as Json;
  }
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/$defs/', REF_PREFIX) : rewriteRefs(v);
  }
  return out;
}

const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function parameters(op: Operation, schemas: SchemaCollector): Json[] {
  const out: Json[] = [];
  const add = (where: 'path' | 'query', shape: z.ZodObject | undefined, examples: Record<string, string> = {}) => {
    if (!shape) return;
    const json = schemas.convert(shape, 'input');
    const props = (json.properties ?? {}) as Record<string, Json>;
    const required = new Set((json.required ?? []) as string[]);
    for (const [name, schema] of Object.entries(props)) {
      const { description, ...rest } = schema;
      out.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        description: typeof description === 'string' ? description : name,
        schema: rest,
        ...(examples[name] === undefined ? {} : { example: typedExample(examples[name], rest) }),
      });
    }
  };
  add('path', op.params, op.example.params);
  add('query', op.query, op.example.query);
  const open = op.query ? (schemas.convert(op.query, 'input').additionalProperties as Json | boolean | undefined) : undefined;
  if (open !== undefined && open !== false) {
    // Open-ended query parameters (an object's field filters) as one form-exploded object, as OpenAPI spells them.
    out.push({
      name: 'filters',
      in: 'query',
      required: false,
      style: 'form',
      explode: true,
      description: 'Every other query parameter: see the operation description.',
      schema: { type: 'object', ...(open === true ? {} : { additionalProperties: open }) },
    });
  }
  if (takesIdempotencyKey(op)) out.push({ $ref: '#/components/parameters/IdempotencyKey' });
  return out;
}

/** Query values travel as text; the example is shown in the parameter's own type. */
function typedExample(value: string, schema: Json): unknown {
  return schema.type === 'integer' || schema.type === 'number' ? Number(value) : value;
}

function requestBody(op: Operation, schemas: SchemaCollector): Json | undefined {
  if (op.rawBody) {
    const content = Object.fromEntries(
      op.rawBody.mediaTypes.map((type) => [type, { schema: { type: 'string', description: op.rawBody?.description }, ...(typeof op.example.body === 'string' ? { example: op.example.body } : {}) }]),
    );
    return { required: true, description: op.rawBody.description, content };
  }
  if (!op.body) return undefined;
  return {
    required: true,
    content: { 'application/json': { schema: schemas.convert(op.body, 'input'), ...(op.example.body === undefined ? {} : { example: op.example.body }) } },
  };
}

function errorResponses(op: Operation): Record<string, Json> {
  const codes: Partial<Record<ErrorCode, string>> = {
    ...COMMON_ERRORS[audienceOf(op)],
    ...(op.body || op.rawBody ? { unsupported_media_type: 'The body is not of a content type this operation takes.' } : {}),
    ...(op.maxBodyBytes ? { payload_too_large: `The body is larger than ${op.maxBodyBytes / 1024} KB.` } : {}),
    ...(takesIdempotencyKey(op) ? KEYED_ERRORS : {}),
  };
  for (const [code, text] of Object.entries(op.errors) as [ErrorCode, string][]) codes[code] = codes[code] ? `${text} ${codes[code]}` : text;
  const byStatus = new Map<number, { lines: string[]; codes: ErrorCode[]; counted: boolean }>();
  for (const [code, text] of Object.entries(codes) as [ErrorCode, string][]) {
    const status = ERROR_STATUS[code];
    const entry = byStatus.get(status) ?? { lines: [], codes: [], counted: false };
    entry.lines.push(`\`${code}\`: ${text}`);
    entry.codes.push(code);
    entry.counted ||= !BEFORE_RATE_LIMIT.has(code);
    byStatus.set(status, entry);
  }
  const limited = audienceOf(op) !== 'operator';
  const out: Record<string, Json> = {};
  for (const [status, { lines, codes: atStatus, counted }] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers: Json = { 'X-Request-Id': headerRef('X-Request-Id'), ...(limited && counted ? rateHeaders() : {}) };
    if (status === 401) headers['WWW-Authenticate'] = headerRef('WWW-Authenticate');
    if (status === 405) headers.Allow = headerRef('Allow');
    if (status === 429) headers['Retry-After'] = headerRef('Retry-After');
    if (replays(op, atStatus)) headers['Idempotent-Replayed'] = headerRef('Idempotent-Replayed');
    out[String(status)] = {
      description: lines.join(' '),
      headers,
      content: { 'application/json': { schema: { $ref: `${REF_PREFIX}Error` }, examples: Object.fromEntries(atStatus.map((code) => [code, { summary: code, value: errorExample(code, op) }])) } },
    };
  }
  return out;
}

/**
 * Whether a keyed operation's answers at this status can be replays: its handler's refusals (its own error codes) are
 * recorded like successes, and `secret_shown_once` is never anything but a replay.
 */
function replays(op: Operation, codes: readonly ErrorCode[]): boolean {
  return takesIdempotencyKey(op) && codes.some((code) => code in op.errors);
}

function rateHeaders(): Json {
  return { 'RateLimit-Policy': headerRef('RateLimit-Policy'), RateLimit: headerRef('RateLimit') };
}

function successResponses(op: Operation, schemas: SchemaCollector): Record<string, Json> {
  const envelope = z.object({ ok: z.literal(true) }).extend(op.output.shape);
  const schema = schemas.convert(envelope, 'output');
  const headers: Json = { 'X-Request-Id': headerRef('X-Request-Id'), ...(audienceOf(op) === 'operator' ? {} : rateHeaders()) };
  if (takesIdempotencyKey(op)) headers['Idempotent-Replayed'] = headerRef('Idempotent-Replayed');
  const statuses: Record<number, string> = { [op.status]: `${STATUS_TEXT[op.status] ?? 'Success'}: ${op.returns}`, ...op.otherSuccess };
  return Object.fromEntries(
    Object.entries(statuses).map(([status, description]) => [
      status,
      { description, headers, content: { 'application/json': { schema, ...(Number(status) === op.status ? { example: { ok: true, ...op.example.response } } : {}) } } },
    ]),
  );
}

const ACCESS_NOTE: Record<Audience, (op: Operation) => string> = {
  api: (op) => `Required scope: \`${scopeText(op)}\`.`,
  operator: () => 'Operator only: `Authorization: Bearer <GATEWAY_ADMIN_TOKEN>`; the route exists only while the token is configured.',
  public: (op) => `No key. Browser calls only from the operator's allowlisted origins; ${op.perIpPerMinute ?? 0} requests per minute per client IP.`,
  portal: () =>
    "Portal key in `X-Portal-Key` (`pk_portal_dealer_…`), from a browser page on one of the key's origins; limited per key and per client IP. Browser-safe: no quantities, bins or prices.",
};

function operationObject(op: Operation, tag: string, schemas: SchemaCollector): Json {
  const audience = audienceOf(op);
  const body = requestBody(op, schemas);
  return {
    operationId: op.name,
    tags: [tag],
    summary: op.summary,
    description: `${op.description}\n\n${ACCESS_NOTE[audience](op)}`,
    ...(audience === 'api' ? { 'x-required-scope': scopeText(op) } : {}),
    // Why no MCP tool of this name exists (MCP clients and the Inspector check read it).
    ...(op.absent?.mcp ? { 'x-mcp-absent': op.absent.mcp } : {}),
    security: SECURITY[audience],
    parameters: parameters(op, schemas),
    ...(body ? { requestBody: body } : {}),
    responses: { ...successResponses(op, schemas), ...errorResponses(op) },
  };
}

/** The OpenAPI 3.1 document of the operation list: what REST serves, as the same definitions describe it. */
export function buildOpenApiDocument(opts: OpenApiOptions & { tagOf: (op: Operation) => string }): Json {
  const schemas = new SchemaCollector();
  // A named schema converts to a $ref and lands in components under its own id.
  schemas.convert(errorEnvelope, 'output');
  const paths: Record<string, Json> = { ...opts.extraPaths };
  for (const op of opts.operations) {
    if (op.absent?.rest) continue;
    const path = openApiPath(op.path);
    paths[path] = { ...(paths[path] ?? {}), [op.method.toLowerCase()]: operationObject(op, opts.tagOf(op), schemas) };
  }
  const schemes: Record<string, Json> = {
    bearerAuth: { type: 'http', scheme: 'bearer', description: apiKeyDescription(opts.scopes) },
    adminToken: { type: 'http', scheme: 'bearer', description: "The operator's (the hub's) GATEWAY_ADMIN_TOKEN, for /admin/v1 only." },
    portalKey: { type: 'apiKey', in: 'header', name: 'X-Portal-Key', description: 'A dealer site\'s browser-safe portal key (`pk_portal_dealer_…`), for /api/portal/v1 only.' },
  };
  // Only the schemes some served operation takes: the admin token is offered only where /admin/v1 exists.
  const used = new Set(opts.operations.flatMap((op) => SECURITY[audienceOf(op)].flatMap((requirement) => Object.keys(requirement))));
  used.add('bearerAuth');
  return {
    openapi: '3.1.0',
    info: {
      title: opts.title,
      version: opts.version,
      description: opts.description,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'This gateway (the document is served by the instance it describes).' }],
    tags: opts.tags,
    security: [{ bearerAuth: [] }],
    paths,
    ...(opts.webhooks === undefined || opts.webhooks.length === 0 ? {} : { webhooks: Object.fromEntries(opts.webhooks.map((doc) => [doc.type, webhookObject(doc, opts.operations)])) }),
    components: {
      securitySchemes: Object.fromEntries(Object.entries(schemes).filter(([name]) => used.has(name))),
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Makes a retry safe: the first call with a key runs, the same call again within 24 h gets the stored answer ' +
            '(with `Idempotent-Replayed: true`). 1-255 printable ASCII characters without spaces.',
          schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
          example: 'retry-7f3c2a',
        },
      },
      headers: HEADERS,
      schemas: schemas.components,
    },
  };
}
