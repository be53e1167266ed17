import type { Browser, Page } from 'playwright-core';
import { API_VERSION } from '../../../src/platform/core/api-version.js';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.js';
import { browserSuiteName, chromiumMissing, failForMissingChromium, launchChromium } from '../../modules/portal/browser/browser-support.js';

/** UPDATE_SCREENSHOTS=1 rewrites docs/api-docs*.png from this run (a normal run leaves the tracked images alone). */
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1';
const PACKAGE = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

if (chromiumMissing !== undefined && !failForMissingChromium) console.warn(`browser suites skipped: ${chromiumMissing}`);
describe.runIf(failForMissingChromium)('the /docs browser suite', () => {
  it('has Chromium in CI', () => {
    expect.fail(chromiumMissing);
  });
});

// The page is the same on every dialect: one SQLite gateway shows it.
describe.skipIf(chromiumMissing !== undefined)(browserSuiteName('/docs in Chromium'), () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let url: string;

  beforeAll(async () => {
    browser = await launchChromium();
    h = await startHarness('sqlite');
    url = await h.app.listen({ port: 0, host: '127.0.0.1' });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 }, deviceScaleFactor: SCREENSHOTS ? 2 : 1 });
    // Swagger UI renders a large document slowly on a busy machine; the waits are for elements, not timings.
    page.setDefaultTimeout(30_000);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it("shows whose API it is, with no Swagger top bar or 'Explore' box", async () => {
    await page.goto(`${url}/docs`);
    const title = page.locator('.information-container .title');
    await title.waitFor();
    expect(await title.innerText()).toContain('tire-gateway');
    expect(await title.innerText()).toContain(API_VERSION);
    expect(await page.title()).toBe(`tire-gateway ${PACKAGE.version} · API reference`);
    expect(await page.locator('.topbar').count()).toBe(0);
    expect(await page.locator('input.download-url-input').count()).toBe(0);
    if (SCREENSHOTS) await page.screenshot({ path: 'docs/api-docs.png' });
  }, 60_000);

  it('shows a real error example, not an invented status', async () => {
    // Deep linking opens the operation on load (a hash change alone would not).
    await page.goto('about:blank');
    await page.goto(`${url}/docs#/orders/orders_create`);
    const forbidden = page.locator('#operations-orders-orders_create tr.response[data-code="403"]');
    await forbidden.waitFor({ state: 'attached' });
    await forbidden.scrollIntoViewIfNeeded();
    const text = await forbidden.innerText();
    expect(text).toContain('"status": 403');
    expect(text).toContain('missing scope: orders:write');
    expect(text).not.toContain('-9007199254740991');
    if (SCREENSHOTS) await forbidden.screenshot({ path: 'docs/api-docs-error-example.png' });
  }, 60_000);

  it('/ links the docs, the OpenAPI document and the health check', async () => {
    await page.goto(`${url}/`);
    expect(await page.locator('h1').innerText()).toContain('tire-gateway');
    await page.getByRole('link', { name: 'API reference' }).click();
    await page.locator('.information-container .title').waitFor();
    expect(page.url()).toContain('/docs');
  }, 60_000);
});
