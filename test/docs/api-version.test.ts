import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION } from '../../src/platform/core/api-version.js';
import { initializeRequest } from '../mcp/support/mcp-clients.js';
import { type Harness, startHarness } from '../support/harness.js';

const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const CHANGELOG = new URL('../../docs/changelog.md', import.meta.url);

/** One contract version, the same in OpenAPI and the changelog partners read; MCP serverInfo names the release (package version). */
describe('API version', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness('sqlite');
    key = (await h.key('acme', 'products:read')).key;
  });
  afterAll(() => h.close());

  it('is a semver the changelog has a section for', () => {
    expect(API_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    expect(readFileSync(CHANGELOG, 'utf8').split('\n')).toContain(`## ${API_VERSION}`);
  });

  it('is OpenAPI info.version; MCP serverInfo.version is the release', async () => {
    expect((await h.request({ method: 'GET', url: '/openapi.json' })).json<{ info: { version: string } }>().info.version).toBe(API_VERSION);
    const res = await h.request({
      method: 'POST',
      url: '/mcp',
      key,
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      payload: initializeRequest,
    });
    expect(res.statusCode, res.body).toBe(200);
    const text = res.body.startsWith('{') ? res.body : (/^data: (.*)$/m.exec(res.body)?.[1] ?? '');
    expect((JSON.parse(text) as { result: { serverInfo: { version: string } } }).result.serverInfo.version).toBe(PACKAGE_VERSION);
  });
});
