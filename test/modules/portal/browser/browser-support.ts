import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`, done by .ci/run): playwright-core never downloads a browser of its own. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Why the browser suites cannot run on this machine, or undefined when they can. */
export const chromiumMissing: string | undefined = existsSync(CHROMIUM_PATH) ? undefined : `${CHROMIUM_PATH} is missing (apt-get install chromium)`;

/** In CI (CI=true) a missing browser fails the run: a skipped browser suite there would pass without testing anything. */
export const failForMissingChromium: boolean = chromiumMissing !== undefined && process.env.CI === 'true';

/** A suite name that says why it was skipped, so the skip shows in the report. */
export const browserSuiteName = (name: string): string => (chromiumMissing === undefined ? name : `${name} [skipped: ${chromiumMissing}]`);

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/** A dealer's site on its own origin (another port): one page, whatever the path, that embeds the widgets. */
export async function startDealerSite(page: (url: URL) => string): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page(new URL(req.url ?? '/', 'http://dealer.invalid'))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

/** How a test page embeds the widgets: extra attributes on each, and whether they sit in a grid (with its gap) or one after the other. */
export interface DealerPageOptions {
  catalogAttrs?: string;
  claimAttrs?: string;
  flow?: boolean;
}

/** The page a dealer writes: the two-line embed (script + element) for each widget, inside their own layout. */
export function dealerPage(gatewayUrl: string, portalKey: string, opts: DealerPageOptions = {}): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Summit Tire Co.</title>
<style>body{margin:0;background:#f4f5f7;font-family:Georgia,serif}header{background:#14213d;color:#fff;padding:18px 32px;font-size:22px}
main{max-width:760px;margin:32px auto;padding:0 16px;${opts.flow ? 'display:block' : 'display:grid;gap:28px'}}</style>
<script src="${gatewayUrl}/portal/widget.js" defer></script>
</head><body><header>Summit Tire Co.</header><main>
<tire-catalog data-key="${portalKey}" ${opts.catalogAttrs ?? ''}></tire-catalog>
<tire-warranty-claim data-key="${portalKey}" ${opts.claimAttrs ?? ''}></tire-warranty-claim>
</main></body></html>`;
}
