import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.js';
import { routeTable } from '../../support/routes.js';

interface Operation {
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown> };
}

const ERROR_REF = { $ref: '#/components/schemas/Error' };
/** Operations the spec defines with no request body ("Payload in: none"). */
const BODILESS = new Set(['POST /v1/orders/:idOrPoNumber/ack', 'POST /v1/telematics/connections/:id/run']);
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

  it('declares the bearer scheme', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
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
    expect(health?.security).toBeUndefined();
    for (const hidden of ['/metrics', '/mcp', '/openapi.json', '/docs']) expect(doc.paths[hidden], hidden).toBeUndefined();
  });

  it('serves interactive docs at /docs', async () => {
    const res = await h.request({ method: 'GET', url: '/docs' });
    const page = res.statusCode === 302 ? await h.request({ method: 'GET', url: String(res.headers.location) }) : res;
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
  });
});
