import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { StaticFile } from '../../../platform/http/static-files.js';

export const WIDGET_SCRIPT_PATH = '/portal/widget.js';
export const WIDGET_DEMO_PATH = '/portal/demo.html';

/** The file beside this module (`npm run build` copies them into dist/). */
const readAsset = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');

const sha256 = (text: string, encoding: 'hex' | 'base64') => createHash('sha256').update(text).digest(encoding);

/** Headers of the script: any site may load it (with or without crossorigin/SRI), and it is never sniffed as anything else. */
const SCRIPT_HEADERS = {
  'content-type': 'text/javascript; charset=utf-8',
  'access-control-allow-origin': '*',
  'cross-origin-resource-policy': 'cross-origin',
  'x-content-type-options': 'nosniff',
};

/** Builds the widget's files: the script twice (short-cached and content-addressed) and the demo. */
function loadWidgetFiles(): { files: StaticFile[]; versionedPath: string } {
  const script = readAsset('widget.js');
  const hash = sha256(script, 'hex').slice(0, 16);
  const versioned = `/portal/widget.${hash}.js`;
  const demo = readAsset('demo.html').replaceAll('{{WIDGET_URL}}', versioned);
  // The demo's one inline script is allowed by its hash, so the page's CSP can refuse every other inline script.
  const inline = [...demo.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => `'sha256-${sha256(m[1] ?? '', 'base64')}'`);
  const files: StaticFile[] = [
    // Dealers embed the stable URL: a short cache, so a release reaches their sites within minutes.
    { path: WIDGET_SCRIPT_PATH, body: script, headers: { ...SCRIPT_HEADERS, 'cache-control': 'public, max-age=300', etag: `"${hash}"` } },
    // The content-addressed URL never changes meaning, so browsers and CDNs keep it for a year.
    { path: versioned, body: script, headers: { ...SCRIPT_HEADERS, 'cache-control': 'public, max-age=31536000, immutable', etag: `"${hash}"` } },
    {
      path: WIDGET_DEMO_PATH,
      body: demo,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-cache',
        'content-security-policy': [
          "default-src 'none'",
          `script-src 'self' ${inline.join(' ')}`,
          "connect-src 'self'",
          "style-src 'unsafe-inline'",
          "img-src 'self' data:",
          "base-uri 'none'",
          "form-action 'none'",
          "frame-ancestors 'none'",
        ].join('; '),
        // The page's URL carries the portal key (?key=): no other site is told it.
        'referrer-policy': 'no-referrer',
        'x-content-type-options': 'nosniff',
      },
    },
  ];
  return { files, versionedPath: versioned };
}

const loaded = loadWidgetFiles();
export const widgetFiles: readonly StaticFile[] = loaded.files;
/** This build's content-addressed script URL, `/portal/widget.<hash>.js` (the one the demo page loads). */
export const widgetVersionedPath: string = loaded.versionedPath;
