import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Harness, startHarness } from '../../support/harness.js';
import { routeTable } from '../../support/routes.js';
import { takesIdempotencyKey } from '../../../src/platform/operations/operation.js';
import { typedQuery } from '../../../src/platform/operations/query-string.js';

interface Operation {
  operationId?: string;
  description?: string;
  'x-required-scope'?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; headers?: Record<string, unknown>; content?: Record<string, { schema?: unknown; example?: unknown }> }>;
}
interface Document {
  openapi: string;
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, { post?: Operation & { requestBody?: { content?: Record<string, { schema?: unknown; example?: unknown }> } } }>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
}

const ERROR_REF = { $ref: '#/components/schemas/Error' };
/** Operations the spec defines with no request body ("Payload in: none"). */
const BODILESS = new Set([
  'POST /v1/orders/:id_or_po_number/ack',
  'POST /v1/telematics/connections/:connection_id/run',
  'POST /v1/telematics/connections/:connection_id/syncs/:sync_id/cancel',
  'POST /v1/webhook-endpoints/:endpoint_id/rotate-secret',
  'POST /v1/webhook-endpoints/:endpoint_id/test',
  'POST /v1/webhook-endpoints/:endpoint_id/deliveries/:delivery_id/retry',
]);
const root = new URL('../../../', import.meta.url).pathname;
const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('OpenAPI document', () => {
  let h: Harness;
  let doc: Document;
  beforeAll(async () => {
    h = await startHarness('sqlite');
    const res = await h.request({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json<Document>();
  });
  afterAll(() => h.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    expect(result.errors, JSON.stringify(result.errors, null, 2)).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('declares the bearer scheme, with every scope the modules declare', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    const { description } = doc.components.securitySchemes.bearerAuth as { description: string };
    expect(h.gateway.scopes.static).toContain('telematics:write');
    for (const scope of [...h.gateway.scopes.static, 'objects:<key>:read|write']) expect(description).toContain(`\`${scope}\``);
  });

  it('documents every /v1 operation with summary, tags, bearer security, schemas and the error envelope', () => {
    const v1 = routeTable(h.app).filter((r) => r.split(' ')[1]?.startsWith('/v1/'));
    expect(v1.length).toBeGreaterThan(0);
    const problems: string[] = [];
    const check = (ok: boolean, route: string, what: string) => {
      if (!ok) problems.push(`${route}: ${what}`);
    };
    for (const route of v1) {
      const [method = '', path = ''] = route.split(' ');
      const op = doc.paths[openApiPath(path)]?.[method.toLowerCase()];
      if (!op) {
        problems.push(`${route}: missing from the document`);
        continue;
      }
      check(Boolean(op.summary), route, 'summary');
      check(/^[a-z][a-z0-9]*(_[a-z0-9]+)+$/.test(op.operationId ?? ''), route, 'operationId');
      check(Boolean(op['x-required-scope']) && (op.description ?? '').includes(`\`${op['x-required-scope']}\``), route, 'scope named in the description and as x-required-scope');
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        check(Boolean(response.description) && response.description !== 'Default Response', route, `${status} description`);
        check(response.headers?.['X-Request-Id'] !== undefined, route, `${status} X-Request-Id header`);
      }
      check(op.responses?.['429']?.headers?.['Retry-After'] !== undefined, route, '429 Retry-After');
      check(op.responses?.['401']?.headers?.['WWW-Authenticate'] !== undefined, route, '401 WWW-Authenticate');
      check((op.tags?.length ?? 0) > 0, route, 'tags');
      check(JSON.stringify(op.security) === JSON.stringify([{ bearerAuth: [] }]), route, 'bearerAuth security');
      const responses = op.responses ?? {};
      const success = Object.keys(responses).filter((s) => s.startsWith('2'));
      check(success.length > 0, route, 'a 2xx response');
      for (const status of success) check(responses[status]?.content?.['application/json']?.schema !== undefined, route, `${status} schema`);
      for (const status of ['400', '401', '403', '429']) {
        const schema = responses[status]?.content?.['application/json']?.schema;
        check(JSON.stringify(schema) === JSON.stringify(ERROR_REF), route, `${status} error envelope`);
      }
      for (const param of path.match(/:[A-Za-z0-9_]+/g) ?? []) {
        check(op.parameters?.some((p) => p.in === 'path' && p.name === param.slice(1)) ?? false, route, `path parameter ${param}`);
      }
      if ((method === 'POST' || method === 'PATCH') && !BODILESS.has(route)) {
        check(op.requestBody?.content !== undefined, route, 'request body schema');
      }
    }
    expect(problems).toEqual([]);
  });

  it('documents /healthz without security and hides /metrics, /mcp and the docs themselves', () => {
    const health = doc.paths['/healthz']?.get;
    expect(health?.summary).toBeTruthy();
    expect(health?.security).toEqual([]);
    for (const hidden of ['/metrics', '/mcp', '/openapi.json', '/docs']) expect(doc.paths[hidden], hidden).toBeUndefined();
  });

  it('names servers and describes every tag it uses', () => {
    expect(doc.servers?.length).toBeGreaterThan(0);
    const described = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) for (const tag of op.tags ?? []) expect(described.get(tag), tag).toBeTruthy();
    }
  });

  it('documents Idempotency-Key on every operation that changes something, and only there', () => {
    for (const { operation: op } of h.gateway.operations) {
      const documented = doc.paths[openApiPath(op.path)]?.[op.method.toLowerCase()];
      const keyed = JSON.stringify(documented?.parameters ?? []).includes('IdempotencyKey');
      expect(keyed, op.name).toBe(takesIdempotencyKey(op));
      if (takesIdempotencyKey(op)) expect(documented?.responses?.[String(op.status)]?.headers?.['Idempotent-Replayed'], op.name).toBeDefined();
    }
  });

  it('documents Idempotent-Replayed on every 409 secret_shown_once, and on the statuses of the refusals a keyed write replays', () => {
    const shownOnce: string[] = [];
    for (const { operation: op } of h.gateway.operations) {
      if (op.absent?.rest) continue;
      const responses = doc.paths[openApiPath(op.path)]?.[op.method.toLowerCase()]?.responses ?? {};
      if ('secret_shown_once' in op.errors) {
        shownOnce.push(op.name);
        expect(op.shownOnce, `${op.name} declares secret_shown_once without shownOnce`).toBeDefined();
        expect(JSON.stringify(responses['409']?.content), op.name).toContain('secret_shown_once');
        expect(responses['409']?.headers?.['Idempotent-Replayed'], op.name).toEqual({ $ref: '#/components/headers/Idempotent-Replayed' });
      }
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) < 400 || !response.headers?.['Idempotent-Replayed']) continue;
        expect(takesIdempotencyKey(op), `${op.name} ${status}: only a keyed write replays`).toBe(true);
      }
    }
    expect(shownOnce.sort()).toEqual(
      ['connect_tokens_create', 'keys_create', 'keys_rotate', 'portal_keys_create', 'webhook_endpoints_create', 'webhook_endpoints_rotate_secret'].sort(),
    );
  });

  it("has one example request and response per operation that its own schemas accept", () => {
    for (const { operation: op } of h.gateway.operations) {
      const { example } = op;
      const envelope = z.object({ ok: z.literal(true) }).extend(op.output.shape);
      expect(envelope.safeParse({ ok: true, ...example.response }).error?.issues, `${op.name} response`).toBeUndefined();
      expect(op.output.strict().safeParse(example.response).success, `${op.name} response has fields the schema does not`).toBe(true);
      if (op.params) expect(op.params.safeParse(example.params ?? {}).error?.issues, `${op.name} params`).toBeUndefined();
      if (op.query) expect(op.query.safeParse(typedQuery(op.query, example.query ?? {})).error?.issues, `${op.name} query`).toBeUndefined();
      if (op.body) expect(op.body.safeParse(example.body).error?.issues, `${op.name} body`).toBeUndefined();
      if (op.rawBody) expect(typeof example.body, `${op.name} raw body`).toBe('string');
      const documented = doc.paths[openApiPath(op.path)]?.[op.method.toLowerCase()];
      expect(documented?.responses?.[String(op.status)]?.content?.['application/json']?.example, op.name).toEqual({ ok: true, ...example.response });
    }
  });

  it('documents every webhook event type with its body schema and an example, as GET /v1/webhook-event-types lists them', async () => {
    const key = (await h.key('org-openapi', 'webhooks:read')).key;
    const listed = (await h.request({ method: 'GET', url: '/v1/webhook-event-types', key })).json<{ event_types: { type: string }[] }>().event_types.map((t) => t.type);
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual([...listed].sort());
    for (const [type, item] of Object.entries(doc.webhooks ?? {})) {
      const content = item.post?.requestBody?.content?.['application/json'];
      expect(content?.schema, type).toBeDefined();
      expect(content?.example, type).toMatchObject({ type, id: expect.stringMatching(/^evt_/) as unknown, data: expect.any(Object) as unknown });
      expect(item.post?.parameters?.map((p) => p.name), type).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    }
  });

  it('leaves no component unused', () => {
    const text = JSON.stringify({ ...doc, components: { ...doc.components, schemas: {} } });
    const schemaText = JSON.stringify(doc.components.schemas);
    const unused = Object.keys(doc.components.schemas).filter((name) => !text.includes(`#/components/schemas/${name}"`) && !schemaText.includes(`#/components/schemas/${name}"`));
    expect(unused).toEqual([]);
  });

  describe('with outside tooling', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'gw-openapi-'));
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc, null, 2));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('passes Redocly lint with no errors and no warnings', { timeout: 120_000 }, () => {
      const run = () =>
        execFileSync(join(root, 'node_modules/.bin/redocly'), ['lint', join(dir, 'openapi.json'), '--config', join(root, 'redocly.yaml'), '--format', 'stylish'], {
          cwd: dir,
          encoding: 'utf8',
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
          stdio: 'pipe',
        });
      let output: string;
      try {
        output = run();
      } catch (err) {
        const e = err as { stdout?: string; stderr?: string };
        throw new Error(`redocly lint failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: err });
      }
      expect(output).not.toMatch(/warning/i);
    });

    it('generates a typed client with openapi-typescript that type-checks', { timeout: 120_000 }, () => {
      execFileSync(join(root, 'node_modules/.bin/openapi-typescript'), [join(dir, 'openapi.json'), '-o', join(dir, 'api.d.ts')], { stdio: 'pipe' });
      const ops = h.gateway.operations.map((e) => e.operation.name);
      const client = [
        "import type { operations, paths } from './api.js';",
        'type Check<T> = T;',
        ...ops.map((name, i) => `export type Op${i} = Check<operations['${name}']['responses']>;`),
        "export type Product = paths['/v1/products/{sku}']['get']['responses'][200]['content']['application/json']['product'];",
        "export const sku: Product['sku'] = 'X';",
      ].join('\n');
      writeFileSync(join(dir, 'client.ts'), client);
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', skipLibCheck: false }, files: ['client.ts', 'api.d.ts'] }),
      );
      try {
        execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json')], { encoding: 'utf8', stdio: 'pipe' });
      } catch (err) {
        const e = err as { stdout?: string; stderr?: string };
        throw new Error(`the generated client does not type-check:\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: err });
      }
    });
  });

  it('serves interactive docs at /docs', async () => {
    const res = await h.request({ method: 'GET', url: '/docs' });
    const page = res.statusCode === 302 ? await h.request({ method: 'GET', url: String(res.headers.location) }) : res;
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
  });
});
