import { readFileSync } from 'node:fs';
import { API_VERSION } from '../../../src/platform/core/api-version.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS, type ErrorCode } from '../../../src/platform/core/errors.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';

const PACKAGE = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };

interface Media {
  example?: unknown;
  examples?: Record<string, { value: { ok: boolean; status: number; code: ErrorCode; error: string; request_id: string; doc_url: string } }>;
}
interface Document {
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, Media> }> }>>;
  components: { securitySchemes: Record<string, unknown> };
}

describe.each(dialects)('whose API /docs and / describe (%s)', (dialect) => {
  let h: Harness;
  let doc: Document;
  beforeAll(async () => {
    h = await startHarness(dialect);
    doc = (await h.request({ method: 'GET', url: '/openapi.json' })).json<Document>();
  });
  afterAll(() => h.close());

  it('the OpenAPI info names the gateway and its release', () => {
    expect(doc.info.title).toBe('tire-gateway');
    expect(doc.info.version).toBe(API_VERSION);
    expect(doc.info.description).toContain(`Served by tire-gateway ${PACKAGE.version}`);
  });

  it('/docs is titled with the gateway, its release, and shows no Swagger top bar or logo', async () => {
    const page = await h.request({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`<title>tire-gateway ${PACKAGE.version} · API reference</title>`);
    expect(page.body).toContain('theme/favicon.svg');
    expect(page.body).not.toContain('favicon-32x32.png');
    const init = await h.request({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.statusCode).toBe(200);
    // BaseLayout renders no top bar: neither a logo nor the "Explore" box that loads another document.
    expect(init.body).toContain('"layout":"BaseLayout"');
    const icon = await h.request({ method: 'GET', url: '/docs/static/theme/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.body).toContain('<svg');
  });

  it('offers only the security schemes this configuration has: no admin token without GATEWAY_ADMIN_TOKEN', async () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['adminToken', 'bearerAuth', 'portalKey']);
    const plain = await startHarness(dialect, { env: { GATEWAY_ADMIN_TOKEN: undefined } });
    try {
      const other = (await plain.request({ method: 'GET', url: '/openapi.json' })).json<Document>();
      expect(Object.keys(other.components.securitySchemes).sort()).toEqual(['bearerAuth', 'portalKey']);
      expect(JSON.stringify(other.paths)).not.toContain('adminToken');
    } finally {
      await plain.close();
    }
  });

  it('every error response shows real examples: its own status, a code of that status, the envelope filled in', () => {
    const problems: string[] = [];
    const seen = new Set<number>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          const media = response.content?.['application/json'];
          if (!media) continue; // an HTML page's answer (the OAuth callback)
          const values = media?.examples ? Object.values(media.examples).map((e) => e.value) : media?.example ? [media.example as NonNullable<Media['examples']>[string]['value']] : [];
          if (values.length === 0) problems.push(`${method} ${path} ${status}: no example`);
          for (const v of values) {
            seen.add(v.status);
            if (v.ok !== false || v.status !== Number(status) || ERROR_STATUS[v.code] !== v.status) problems.push(`${method} ${path} ${status}: ${JSON.stringify(v)}`);
            if (!v.error || !v.request_id || v.doc_url !== `docs/errors.md#${v.code}`) problems.push(`${method} ${path} ${status}: ${JSON.stringify(v)}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    for (const status of [401, 403, 404, 409, 422, 429]) expect(seen, String(status)).toContain(status);
  });

  it('shows the message the gateway sends, e.g. the scope a 403 names', () => {
    const media = doc.paths['/v1/orders']?.post?.responses['403']?.content?.['application/json'];
    expect(media?.examples?.missing_scope?.value).toMatchObject({ status: 403, code: 'missing_scope', error: 'missing scope: orders:write' });
  });

  it('MCP serverInfo names the gateway and its release', async () => {
    const res = await h.request({
      method: 'POST',
      url: '/mcp',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
      payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } } },
      key: (await h.key('acme', 'all')).key,
    });
    expect(res.statusCode, res.body).toBe(200);
    const { serverInfo } = (JSON.parse(res.body) as { result: { serverInfo: Record<string, string> } }).result;
    expect(serverInfo).toMatchObject({ name: 'tire-gateway', title: 'Tire gateway', version: PACKAGE.version });
  });

  it('/ answers a small page linking the docs, the OpenAPI document and the health check', async () => {
    const res = await h.request({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    for (const href of ['/docs', '/openapi.json', '/healthz']) expect(res.body).toContain(`href="${href}"`);
    expect(res.body).toContain(PACKAGE.version);
    const wrong = await h.request({ method: 'POST', url: '/' });
    expect(wrong.statusCode).toBe(405);
  });
});
