import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WIDGET_DEMO_PATH, WIDGET_SCRIPT_PATH, widgetVersionedPath } from '../../../../src/modules/portal/widget/widget.files.js';
import { expectError } from '../../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../../support/harness.js';

const sha256 = (text: string, encoding: 'hex' | 'base64') => createHash('sha256').update(text).digest(encoding);

// The files a dealer's page loads from the gateway: served without a key, cached by what they are.
describe.each(dialects.slice(0, 1))('portal widget files (%s)', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(dialect);
  });
  afterAll(() => h.close());

  it('serves the script at its stable URL with a short cache and an ETag, answering 304 to a match', async () => {
    const res = await h.request({ method: 'GET', url: WIDGET_SCRIPT_PATH });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toContain("customElements.define('tire-catalog'");
    expect(res.body).toContain("customElements.define('tire-warranty-claim'");
    const etag = String(res.headers.etag);
    const again = await h.request({ method: 'GET', url: WIDGET_SCRIPT_PATH, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await h.request({ method: 'HEAD', url: WIDGET_SCRIPT_PATH })).statusCode).toBe(200);
  });

  it('serves the same script at a content-addressed URL, cached for a year as immutable', async () => {
    const stable = await h.request({ method: 'GET', url: WIDGET_SCRIPT_PATH });
    expect(widgetVersionedPath).toBe(`/portal/widget.${sha256(stable.body, 'hex').slice(0, 16)}.js`);
    const res = await h.request({ method: 'GET', url: widgetVersionedPath });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body).toBe(stable.body);
    // Another build's hash is not this file: a 404, never a stale copy under a year-long cache.
    expectError(await h.request({ method: 'GET', url: '/portal/widget.0123456789abcdef.js' }), 404, 'not_found');
  });

  it('serves the demo page loading the versioned script, with a CSP that allows its one inline script by hash', async () => {
    const res = await h.request({ method: 'GET', url: WIDGET_DEMO_PATH });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain(`<script src="${widgetVersionedPath}" defer></script>`);
    expect(res.body).toContain('<tire-catalog');
    expect(res.body).toContain('<tire-warranty-claim');
    const inline = [...res.body.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '');
    expect(inline).toHaveLength(1);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain(`script-src 'self' 'sha256-${sha256(inline[0] ?? '', 'base64')}'`);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('keeps the files out of the OpenAPI document', async () => {
    const doc = (await h.request({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/portal/'))).toEqual([]);
  });
});
