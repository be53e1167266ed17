import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Harness, HARNESS_ADMIN_TOKEN, startHarness } from '../../../support/harness.js';
import { browserSuiteName, CHROMIUM_PATH, chromiumMissing, dealerPage, failForMissingChromium, launchChromium, startDealerSite } from './browser-support.js';

/** UPDATE_SCREENSHOTS=1 rewrites docs/portal-*.png from this run (a normal run leaves the tracked images alone). */
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1';

const CATALOG = [
  { sku: 'MICH-225-45R17-PS4', name: 'Michelin Pilot Sport 4 225/45R17 94Y', description: 'Max-performance summer tire: precise steering and short wet braking.', stock_qty: 40 },
  { sku: 'BRID-205-55R16-T005', name: 'Bridgestone Turanza T005 205/55R16 91V', description: 'Touring tire for a quiet, comfortable ride and long tread life.', stock_qty: 5 },
  { sku: 'CONT-235-65R17-LX25', name: 'Continental CrossContact LX25 235/65R17 104H', description: 'All-season SUV tire with a 70,000-mile tread warranty.', stock_qty: 0 },
  { sku: 'GOOD-195-65R15-AWR', name: 'Goodyear Assurance WeatherReady 195/65R15 91H', description: 'All-weather tire, three-peak mountain snowflake rated.', stock_qty: 24 },
];

interface Claims {
  claims: { claim_number: string; status: string }[];
}

if (chromiumMissing !== undefined && !failForMissingChromium) console.warn(`browser suites skipped: ${chromiumMissing}`);

describe.runIf(failForMissingChromium)('Chromium for the browser suites', () => {
  it(`is installed at ${CHROMIUM_PATH}: CI must run the browser suites (.ci/run installs it)`, () => {
    expect.fail(chromiumMissing);
  });
});

describe.skipIf(chromiumMissing !== undefined).each(dialects)(browserSuiteName('portal widget in Chromium, embedded on a dealer site (%s)'), (dialect) => {
  let h: Harness;
  let apiKey: string;
  let browser: Browser;
  let allowed: Awaited<ReturnType<typeof startDealerSite>>;
  let refused: Awaited<ReturnType<typeof startDealerSite>>;
  const pages: Page[] = [];

  /** A fresh tab on a site; every response from the portal API it gets is kept, to show what data reached it. */
  async function open(origin: string, path = '/tires') {
    const page = await browser.newPage({ viewport: { width: 880, height: 1000 }, deviceScaleFactor: SCREENSHOTS ? 2 : 1 });
    pages.push(page);
    // Below the test's own timeout, so a missing element fails with Playwright's account of what it waited for.
    page.setDefaultTimeout(10_000);
    const portalAnswers: { method: string; url: string; status: number }[] = [];
    page.on('response', (res) => {
      if (res.url().includes('/api/portal/v1/')) portalAnswers.push({ method: res.request().method(), url: res.url(), status: res.status() });
    });
    await page.goto(`${origin}${path}`);
    return { page, portalAnswers };
  }

  const claimCount = async () => (await h.request({ method: 'GET', url: '/v1/warranty-claims?limit=100', key: apiKey })).json<Claims>().claims.length;

  beforeAll(async () => {
    browser = await launchChromium();
    h = await startHarness(dialect);
    const gatewayUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
    expect((await h.request({ method: 'GET', url: '/portal/widget.js' })).statusCode, 'the gateway serves the widget script').toBe(200);
    apiKey = (await h.key('summit', 'all')).key;
    for (const product of CATALOG) {
      const res = await h.request({ method: 'POST', url: '/v1/products', key: apiKey, payload: product });
      expect(res.statusCode, res.body).toBe(201);
    }
    // The key lists the dealer site's origin, known once the site listens: the page is written per request.
    let portalKey = '';
    // `?key=` puts another key on the page.
    const page = (url: URL) => dealerPage(gatewayUrl, url.searchParams.get('key') ?? portalKey);
    allowed = await startDealerSite(page);
    refused = await startDealerSite(page);
    const created = await h.request({
      method: 'POST',
      url: '/admin/v1/portal-keys',
      headers: { authorization: `Bearer ${HARNESS_ADMIN_TOKEN}` },
      payload: { org: 'summit', dealer: 'Summit Tire Co.', origins: [allowed.origin] },
    });
    expect(created.statusCode, created.body).toBe(201);
    portalKey = created.json<{ portal_key: { key: string } }>().portal_key.key;
  });

  afterAll(async () => {
    await Promise.all(pages.map((p) => p.close()));
    await browser?.close();
    await allowed?.close();
    await refused?.close();
    await h?.close();
  });

  it('lists the catalog with an availability badge per tire, and searches it from the keyboard', async () => {
    const { page } = await open(allowed.origin);
    const catalog = page.locator('tire-catalog');
    await catalog.locator('li.item:not(.skeleton)').first().waitFor();
    expect(await catalog.locator('li.item').count()).toBe(4);
    const badge = (sku: string) => catalog.locator(`li[data-sku="${sku}"] .badge`).textContent();
    expect(await badge('MICH-225-45R17-PS4')).toBe('In stock');
    expect(await badge('BRID-205-55R16-T005')).toBe('Low stock');
    expect(await badge('CONT-235-65R17-LX25')).toBe('On backorder');
    expect(await catalog.locator('[role="status"]').textContent()).toBe('4 tires.');
    // No quantity reaches the page.
    expect(await catalog.locator('section').innerText()).not.toMatch(/\b(40|24)\b/);
    if (SCREENSHOTS) {
      mkdirSync('docs', { recursive: true });
      await catalog.screenshot({ path: 'docs/portal-catalog.png' });
    }

    // Keyboard only: the label names the field, Enter submits the form.
    await catalog.getByLabel('Search the catalog').focus();
    await page.keyboard.type('r17');
    await page.keyboard.press('Enter');
    await catalog.locator('[role="status"]', { hasText: 'matching' }).waitFor();
    expect(await catalog.locator('[role="status"]').textContent()).toBe('2 tires matching “r17”.');
    const found = await Promise.all((await catalog.locator('li.item').all()).map((li) => li.getAttribute('data-sku')));
    expect(found.sort()).toEqual(['CONT-235-65R17-LX25', 'MICH-225-45R17-PS4']);

    await catalog.getByLabel('Search the catalog').fill('winter slicks');
    await catalog.getByRole('button', { name: 'Search' }).click();
    await catalog.locator('.empty:not([hidden])').waitFor();
    expect(await catalog.locator('.empty').innerText()).toContain('No tires match “winter slicks”');
    expect(await catalog.locator('li.item').count()).toBe(0);
  });

  it('checks a claim in the browser first, shows the server’s per-field error, then files it and looks its status up', async () => {
    const { page, portalAnswers } = await open(allowed.origin);
    const claim = page.locator('tire-warranty-claim');
    const before = await claimCount();
    if (SCREENSHOTS) await claim.screenshot({ path: 'docs/portal-warranty-claim.png' });

    // Client-side rules: nothing is sent while a field breaks the server's rules.
    await claim.getByRole('button', { name: 'Submit claim' }).click();
    expect(await claim.locator('[aria-invalid="true"]').count()).toBe(3);
    await claim.getByLabel('DOT number').fill('DOT XQ2 1234');
    await claim.getByLabel('Number of tires').fill('0');
    await claim.getByLabel('Email').fill('not-an-email');
    await claim.getByRole('button', { name: 'Submit claim' }).click();
    const errorOf = async (label: string) => claim.locator(`[id="${await claim.getByLabel(label).getAttribute('id')}-error"]`).textContent();
    expect(await errorOf('DOT number')).toContain('never use the letter Q');
    expect(await errorOf('Number of tires')).toBe('Enter a whole number from 1 to 1,000,000.');
    expect(await errorOf('Email')).toBe('Enter a valid email address, like name@example.com.');
    // Focus moves to the first field to fix.
    expect(await claim.locator('form[part="form"] [name="customer_ref"]:focus').count()).toBe(1);
    expect(portalAnswers.filter((a) => a.url.includes('/warranty-claims'))).toEqual([]);

    // The server's rule the browser cannot know (the SKU must be in this catalog) comes back on its field.
    await claim.getByLabel('Your reference').first().fill('INV-20931');
    await claim.getByLabel('Email').fill('jordan.lee@example.com');
    await claim.getByLabel('Tire SKU').fill('NOPE-999');
    await claim.getByLabel('DOT number').fill('');
    await claim.getByLabel('Number of tires').fill('2');
    await claim.getByLabel('What happened?').fill('Sidewall bulge on the front left tire after 3,000 miles of highway driving.');
    await claim.getByRole('button', { name: 'Submit claim' }).click();
    await claim.locator('[role="alert"]').getByText('unknown sku NOPE-999: it is not in your catalog').waitFor();
    expect(await errorOf('Tire SKU')).toBe('unknown sku NOPE-999: it is not in your catalog');

    await claim.getByLabel('Tire SKU').fill('MICH-225-45R17-PS4');
    await claim.getByRole('button', { name: 'Submit claim' }).click();
    const number = claim.locator('[data-claim-number]');
    await number.waitFor();
    const claimNumber = (await number.textContent()) ?? '';
    expect(claimNumber).toMatch(/^WC-\d{6,}$/);
    expect(await claimCount()).toBe(before + 1);

    await claim.getByRole('button', { name: 'Check its status' }).click();
    const status = claim.locator('[data-status]');
    await status.waitFor();
    expect(await status.getAttribute('data-status')).toBe('submitted');
    expect(await claim.locator('.result .num').textContent()).toBe(claimNumber);

    // A wrong reference reads as no claim at all.
    await claim.getByLabel('Claim number').fill(claimNumber);
    await claim.getByLabel('Your reference').last().fill('INV-00000');
    await claim.getByRole('button', { name: 'Check status' }).click();
    await claim.getByText('We couldn’t find a claim with that number and reference.').waitFor();
  });

  it('on a site the key does not list, shows the error state and gets no data', async () => {
    const { page, portalAnswers } = await open(refused.origin);
    const catalog = page.locator('tire-catalog');
    const alert = catalog.locator('[role="alert"]');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('This site is not allowed to use this key.');
    expect(await catalog.locator('li.item').count()).toBe(0);

    const claim = page.locator('tire-warranty-claim');
    const before = await claimCount();
    await claim.getByLabel('Your reference').first().fill('INV-1');
    await claim.getByLabel('Email').fill('someone@example.com');
    await claim.getByLabel('What happened?').fill('Puncture.');
    await claim.getByRole('button', { name: 'Submit claim' }).click();
    await claim.locator('[role="alert"]').getByText('This site is not allowed to use this key.').waitFor();
    expect(await claimCount()).toBe(before);
    expect(portalAnswers.filter((a) => a.status < 300 && a.method !== 'OPTIONS')).toEqual([]);
  });

  it('with a key the gateway does not know, says the key is not valid', async () => {
    const { page } = await open(allowed.origin, `/tires?key=pk_portal_dealer_${'x'.repeat(32)}`);
    const alert = page.locator('tire-catalog [role="alert"]');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('This widget’s portal key is not valid.');
  });
});
