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
  async function open(origin: string, path = '/tires', width = 880) {
    const page = await browser.newPage({ viewport: { width, height: 1000 }, deviceScaleFactor: SCREENSHOTS ? 2 : 1 });
    pages.push(page);
    // Below the test's own timeout, so a missing element fails with Playwright's account of what it waited for.
    page.setDefaultTimeout(10_000);
    const portalAnswers: { method: string; url: string; status: number }[] = [];
    const consoleLines: string[] = [];
    page.on('console', (msg) => consoleLines.push(msg.text()));
    page.on('response', (res) => {
      if (res.url().includes('/api/portal/v1/')) portalAnswers.push({ method: res.request().method(), url: res.url(), status: res.status() });
    });
    await page.goto(`${origin}${path}`);
    return { page, portalAnswers, consoleLines };
  }

  /** The page path with widget attributes (as the dealer would write them) and layout for this tab. */
  const withAttrs = (opts: { catalog?: string; claim?: string; flow?: boolean }) =>
    `/tires?${new URLSearchParams({ ...(opts.catalog ? { catalog: opts.catalog } : {}), ...(opts.claim ? { claim: opts.claim } : {}), ...(opts.flow ? { flow: '1' } : {}) }).toString()}`;

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
    const page = (url: URL) =>
      dealerPage(gatewayUrl, url.searchParams.get('key') ?? portalKey, {
        catalogAttrs: url.searchParams.get('catalog') ?? '',
        claimAttrs: url.searchParams.get('claim') ?? '',
        flow: url.searchParams.has('flow'),
      });
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
    // Each row shows the normalized size before the SKU.
    expect(await catalog.locator('li[data-sku="MICH-225-45R17-PS4"] .sku').textContent()).toBe('225/45R17 · SKU MICH-225-45R17-PS4');
    expect(await catalog.locator('li[data-sku="CONT-235-65R17-LX25"] .size').textContent()).toBe('235/65R17');
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

    // A size as shoppers type it finds the tires of that size, however it is spelt.
    for (const spelling of ['225 45 17', 'P225/45ZR17']) {
      await catalog.getByLabel('Search the catalog').fill(spelling);
      await catalog.getByRole('button', { name: 'Search' }).click();
      await catalog.locator('[role="status"]', { hasText: `matching “${spelling}”` }).waitFor();
      expect(await catalog.locator('[role="status"]').textContent()).toBe(`1 tire matching “${spelling}”.`);
      expect(await catalog.locator('li.item').getAttribute('data-sku')).toBe('MICH-225-45R17-PS4');
    }

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
    await claim.getByLabel('Invoice or order number', { exact: true }).fill('INV-20931');
    await claim.getByLabel('Email').fill('jordan.lee@example.com');
    await claim.getByLabel('Tire SKU').fill('NOPE-999');
    await claim.getByLabel('DOT number').fill('');
    await claim.getByLabel('Number of tires').fill('2');
    await claim.getByLabel('What happened?').fill('Sidewall bulge on the front left tire after 3,000 miles of highway driving.');
    await claim.getByRole('button', { name: 'Submit claim' }).click();
    await claim.locator('[role="alert"]').getByRole('link', { name: 'Tire SKU: unknown sku NOPE-999: it is not in your catalog' }).waitFor();
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
    await claim.getByLabel('Invoice or order number on the claim').fill('INV-00000');
    await claim.getByRole('button', { name: 'Check status' }).click();
    await claim.getByText('We couldn’t find a claim with that number and reference.').waitFor();
  });

  it('on a site the key does not list, says so to the customer up front, the reason to the developer, and gets no data', async () => {
    const { page, portalAnswers, consoleLines } = await open(refused.origin);
    const catalog = page.locator('tire-catalog');
    const alert = catalog.locator('[role="alert"]');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('The tire catalog is not available on this site right now.');
    expect(await catalog.locator('li.item').count()).toBe(0);

    // The claim form knows at load, before anyone types: the notice shows, the fields are off, the lookup is gone.
    const claim = page.locator('tire-warranty-claim');
    await claim.locator('[role="alert"]').getByText('This form is not available on this site right now.').waitFor();
    expect(await claim.getByLabel('Invoice or order number', { exact: true }).isDisabled()).toBe(true);
    expect(await claim.getByRole('button', { name: 'Submit claim' }).isDisabled()).toBe(true);
    expect(await claim.locator('[part="lookup"]').isVisible()).toBe(false);
    // Nothing in it speaks of keys or origins to the customer; the console tells the developer.
    expect(await claim.locator('section').innerText()).not.toMatch(/key|origin/i);
    expect(consoleLines.some((line) => line.includes('<tire-warranty-claim>') && line.includes(`${refused.origin} is not on the portal key’s list of origins`))).toBe(true);
    if (SCREENSHOTS) await claim.screenshot({ path: 'docs/portal-warranty-claim-unavailable.png' });
    expect(portalAnswers.filter((a) => a.status < 300 && a.method !== 'OPTIONS')).toEqual([]);
  });

  it('with a key the gateway does not know, says the key is not valid', async () => {
    const { page } = await open(allowed.origin, `/tires?key=pk_portal_dealer_${'x'.repeat(32)}`);
    const alert = page.locator('tire-catalog [role="alert"]');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('The tire catalog is not available on this site right now.');
    await page.locator('tire-warranty-claim [role="alert"]').getByText('This form is not available on this site right now.').waitFor();
  });

  it('links each row through data-action-url (SKU encoded, http(s) only) and files a claim for a row’s tire', async () => {
    const { page } = await open(allowed.origin, withAttrs({ catalog: 'data-action-url="/tires/{sku}?from=widget" data-claim-form' }));
    const catalog = page.locator('tire-catalog');
    const row = catalog.locator('li[data-sku="MICH-225-45R17-PS4"]');
    const link = row.getByRole('link', { name: 'Michelin Pilot Sport 4 225/45R17 94Y' });
    expect(await link.getAttribute('href')).toBe(`${allowed.origin}/tires/MICH-225-45R17-PS4?from=widget`);
    expect(await catalog.getByRole('link').count()).toBe(4);
    if (SCREENSHOTS) await catalog.screenshot({ path: 'docs/portal-catalog-actions.png' });

    await row.getByRole('button', { name: 'File a claim for Michelin Pilot Sport 4 225/45R17 94Y' }).click();
    const claim = page.locator('tire-warranty-claim');
    expect(await claim.getByLabel('Tire SKU').inputValue()).toBe('MICH-225-45R17-PS4');
    // Focus goes to the first field still to fill, and a screen reader hears what was filled in.
    expect(await claim.locator('form[part="form"] [name="customer_ref"]:focus').count()).toBe(1);
    expect(await claim.locator('[role="status"]').first().textContent()).toBe('Tire SKU MICH-225-45R17-PS4 filled in.');

    // A template that would make a javascript: (or any non-http) URL gives no links at all, and says why in the console.
    const bad = await open(allowed.origin, withAttrs({ catalog: 'data-action-url="javascript:alert(1)//{sku}"' }));
    await bad.page.locator('tire-catalog li.item:not(.skeleton)').first().waitFor();
    expect(await bad.page.locator('tire-catalog').getByRole('link').count()).toBe(0);
    expect(bad.consoleLines.some((line) => line.includes('data-action-url'))).toBe(true);
    // SKUs are URL-encoded into the template.
    const encoded = await bad.page.evaluate(() => encodeURIComponent('A/B #1'));
    expect(encoded).toBe('A%2FB%20%231');
  });

  it('spaces widgets stacked in normal flow, fits the search at 375 px, and takes its heading level from data-heading-level', async () => {
    // Browser code as text: this project's TypeScript has no DOM types.
    const gapBetween = (page: Page) =>
      page.evaluate<number>(`(() => {
        const card = (name) => document.querySelector(name).shadowRoot.querySelector('.card').getBoundingClientRect();
        return card('tire-warranty-claim').top - card('tire-catalog').bottom;
      })()`);
    const stacked = await open(allowed.origin, withAttrs({ flow: true }));
    await stacked.page.locator('tire-catalog li.item:not(.skeleton)').first().waitFor();
    expect(await gapBetween(stacked.page)).toBeGreaterThanOrEqual(16);
    // In a grid the page's own gap spaces them: the widget adds nothing to it.
    const grid = await open(allowed.origin);
    await grid.page.locator('tire-catalog li.item:not(.skeleton)').first().waitFor();
    expect(await gapBetween(grid.page)).toBe(28);

    const mobile = await open(allowed.origin, '/tires', 375);
    await mobile.page.locator('tire-catalog li.item:not(.skeleton)').first().waitFor();
    // The placeholder's width in the input's font against the room inside the input's padding.
    const fit = await mobile.page.evaluate<{ text: number; room: number }>(`(() => {
      const el = document.querySelector('tire-catalog').shadowRoot.querySelector('input[name="q"]');
      const style = getComputedStyle(el);
      const context = document.createElement('canvas').getContext('2d');
      context.font = style.fontWeight + ' ' + style.fontSize + ' ' + style.fontFamily;
      return { text: context.measureText(el.placeholder).width, room: el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) };
    })()`);
    expect(fit.text).toBeLessThanOrEqual(fit.room);
    if (SCREENSHOTS) await mobile.page.locator('tire-catalog').screenshot({ path: 'docs/portal-catalog-375.png' });

    const levels = await open(allowed.origin, withAttrs({ catalog: 'data-heading-level="3"', claim: 'data-heading-level="4"' }));
    const catalog = levels.page.locator('tire-catalog');
    await catalog.locator('li.item:not(.skeleton)').first().waitFor();
    expect(await catalog.getByRole('heading', { level: 3, name: 'Find your tires' }).count()).toBe(1);
    expect(await catalog.getByRole('heading', { level: 4 }).count()).toBe(4);
    const claim = levels.page.locator('tire-warranty-claim');
    expect(await claim.getByRole('heading', { level: 4, name: 'Warranty claim' }).count()).toBe(1);
    expect(await claim.getByRole('heading', { level: 5, name: 'Check a claim’s status' }).count()).toBe(1);
  });

  it('tells the two reference fields apart and links the error summary to each field', async () => {
    const { page } = await open(allowed.origin);
    const claim = page.locator('tire-warranty-claim');
    expect(await claim.getByLabel('Invoice or order number', { exact: true }).count()).toBe(1);
    expect(await claim.getByLabel('Invoice or order number on the claim', { exact: true }).count()).toBe(1);
    expect(await claim.getByLabel(/reference/i).count()).toBe(0);

    await claim.getByLabel('Email').fill('not-an-email');
    await claim.getByRole('button', { name: 'Submit claim' }).click();
    const summary = claim.locator('[role="alert"]');
    expect(await summary.getByText('Please correct 3 highlighted fields.').count()).toBe(1);
    const links = summary.getByRole('link');
    expect(await links.allTextContents()).toEqual([
      'Invoice or order number: Enter your invoice or order number.',
      'Email: Enter a valid email address, like name@example.com.',
      'What happened?: Describe the problem with the tire.',
    ]);
    await links.nth(1).click();
    expect(await claim.locator('form[part="form"] [name="contact_email"]:focus').count()).toBe(1);
    if (SCREENSHOTS) await claim.screenshot({ path: 'docs/portal-warranty-claim-errors.png' });
  });
});
