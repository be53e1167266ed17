/*
 * Tire dealer portal widget: <tire-catalog> and <tire-warranty-claim>, custom elements a dealer drops into any page.
 * Dependency-free ES2020, served as is by the gateway (no build step). Talks to {gateway}/api/portal/v1 with the
 * element's data-key (a browser-safe portal key that works only from the origins listed on it).
 */
(() => {
  'use strict';
  if (typeof customElements === 'undefined' || customElements.get('tire-catalog')) return;

  // The default gateway is the one this script came from; document.currentScript is set only while it first runs.
  const SCRIPT_ORIGIN = (() => {
    try {
      return new URL(document.currentScript.src).origin;
    } catch {
      return location.origin;
    }
  })();
  const API_PATH = '/api/portal/v1';

  const AVAILABILITY = {
    in_stock: 'In stock',
    low_stock: 'Low stock',
    backorder: 'On backorder',
  };
  const CLAIM_STATUS = {
    submitted: 'Submitted',
    under_review: 'Under review',
    approved: 'Approved',
    denied: 'Denied',
    closed: 'Closed',
  };
  const humanize = (word) => String(word).replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

  /* ---------- DOM helpers: every value goes in as text, never as markup ---------- */

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === false || value === undefined || value === null) continue;
      if (name === 'text') el.textContent = value;
      else if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
      else el.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) el.append(child);
    return el;
  }

  const SVG_NS = 'http://www.w3.org/2000/svg';
  function svg(markup, cls) {
    const el = document.createElementNS(SVG_NS, 'svg');
    el.setAttribute('viewBox', '0 0 24 24');
    el.setAttribute('aria-hidden', 'true');
    el.setAttribute('focusable', 'false');
    if (cls) el.setAttribute('class', cls);
    // Static icon markup written in this file; no data ever reaches it.
    el.innerHTML = markup;
    return el;
  }
  const ICONS = {
    // A tire from the side: tread blocks around a dark ring, a light rim with five lug holes.
    tire:
      '<circle cx="12" cy="12" r="10.4" fill="currentColor"/>' +
      '<circle class="tread" cx="12" cy="12" r="9.75" fill="none" stroke-width="1.2" stroke-dasharray="1.5 1.563"/>' +
      '<circle class="rim" cx="12" cy="12" r="5.6"/><circle cx="12" cy="12" r="1.5" fill="currentColor"/>' +
      '<g fill="currentColor" opacity=".55"><circle cx="12" cy="8.9" r=".75"/><circle cx="14.95" cy="11.04" r=".75"/><circle cx="13.82" cy="14.51" r=".75"/>' +
      '<circle cx="10.18" cy="14.51" r=".75"/><circle cx="9.05" cy="11.04" r=".75"/></g>',
    search: '<circle cx="10.5" cy="10.5" r="6.5" fill="none" stroke="currentColor" stroke-width="2"/><path d="M15.5 15.5l5 5" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>',
    alert: '<circle cx="12" cy="12" r="10" fill="none" stroke="currentColor" stroke-width="2"/><path d="M12 7v6" stroke="currentColor" stroke-width="2" stroke-linecap="round"/><circle cx="12" cy="16.5" r="1.2" fill="currentColor"/>',
    check: '<circle cx="12" cy="12" r="10" fill="currentColor"/><path d="M7.5 12.5l3 3 6-6.5" fill="none" stroke="#fff" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/>',
  };

  /* ---------- styles: one sheet per element, themable through --tire-* custom properties ---------- */

  const BASE_CSS = `
:host {
  --_accent: var(--tire-accent, #c2410c);
  --_accent-text: var(--tire-accent-text, #ffffff);
  --_font: var(--tire-font, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif);
  --_radius: var(--tire-radius, 10px);
  --_text: var(--tire-text, #1f2933);
  --_muted: var(--tire-muted, #5b6673);
  --_surface: var(--tire-surface, #ffffff);
  --_subtle: var(--tire-subtle, #f5f6f8);
  --_border: var(--tire-border, #d9dee4);
  --_focus: var(--tire-focus, #2563eb);
  --_danger: var(--tire-danger, #b42318);
  --_success: var(--tire-success, #15803d);
  display: block;
  container-type: inline-size;
  font-family: var(--_font);
  font-size: 16px;
  line-height: 1.5;
  color: var(--_text);
}
:host([hidden]) { display: none; }
*, *::before, *::after { box-sizing: border-box; }
.card {
  background: var(--_surface);
  border: 1px solid var(--_border);
  border-radius: var(--_radius);
  padding: 24px;
  box-shadow: 0 1px 2px rgba(16, 24, 40, .06), 0 4px 16px rgba(16, 24, 40, .05);
}
.head { display: flex; gap: 14px; align-items: center; margin-bottom: 18px; }
h1, h2, h3, h4, h5, h6 { margin: 0; }
.title { font-size: 1.3rem; line-height: 1.25; letter-spacing: -.01em; }
.subtitle { font-size: 1.05rem; line-height: 1.3; }
.card.stacked { margin-bottom: var(--tire-stack-gap, 24px); }
.summary ul { margin: 6px 0 0; padding-left: 20px; }
.summary a { color: var(--_danger); font-weight: 500; }
.sub { margin: 2px 0 0; color: var(--_muted); font-size: .925rem; }
label { display: block; font-weight: 600; font-size: .9rem; margin-bottom: 6px; }
.opt { font-weight: 400; color: var(--_muted); }
input, textarea {
  font: inherit; color: inherit; width: 100%;
  padding: 10px 12px; border: 1px solid var(--_border); border-radius: calc(var(--_radius) * .7);
  background: var(--_surface);
}
textarea { min-height: 112px; resize: vertical; }
input::placeholder, textarea::placeholder { color: var(--_muted); opacity: .75; }
input[aria-invalid="true"], textarea[aria-invalid="true"] { border-color: var(--_danger); box-shadow: 0 0 0 1px var(--_danger); }
button {
  font: inherit; font-weight: 600; cursor: pointer;
  padding: 10px 18px; border-radius: calc(var(--_radius) * .7);
  border: 1px solid var(--_accent); background: var(--_accent); color: var(--_accent-text);
  display: inline-flex; align-items: center; gap: 8px; justify-content: center; white-space: nowrap;
}
button:hover { filter: brightness(.93); }
button:disabled { opacity: .6; cursor: progress; }
button.secondary { background: var(--_surface); color: var(--_text); border-color: var(--_border); }
button svg { width: 18px; height: 18px; }
:focus { outline: none; }
:focus-visible, input:focus, textarea:focus { outline: 3px solid var(--_focus); outline-offset: 2px; }
.hint { margin: 4px 0 0; font-size: .825rem; color: var(--_muted); }
.field-error { margin: 4px 0 0; font-size: .85rem; color: var(--_danger); font-weight: 500; }
.field-error:empty { display: none; }
.notice {
  display: flex; gap: 12px; align-items: flex-start;
  border: 1px solid color-mix(in srgb, var(--_danger) 35%, transparent);
  background: color-mix(in srgb, var(--_danger) 7%, var(--_surface));
  border-radius: calc(var(--_radius) * .8); padding: 14px 16px; margin: 12px 0;
}
.notice svg { width: 22px; height: 22px; flex: none; color: var(--_danger); margin-top: 1px; }
.notice p { margin: 2px 0 0; color: var(--_muted); font-size: .925rem; }
.notice button { margin-top: 10px; }
.badge {
  display: inline-flex; align-items: center; gap: 6px; white-space: nowrap;
  padding: 3px 10px; border-radius: 999px; font-size: .8rem; font-weight: 600; line-height: 1.5;
  border: 1px solid transparent;
}
.badge::before { content: ""; width: 8px; height: 8px; border-radius: 50%; background: currentColor; }
.badge.in_stock, .badge.approved { color: var(--tire-in-stock, #166534); background: #dcfce7; border-color: #bbf7d0; }
.badge.low_stock, .badge.under_review { color: var(--tire-low-stock, #92400e); background: #fef3c7; border-color: #fde68a; }
.badge.backorder, .badge.submitted { color: var(--tire-backorder, #3f4b5b); background: #eef1f5; border-color: #dde2e9; }
.badge.denied { color: var(--_danger); background: #fee4e2; border-color: #fecdca; }
.badge.closed { color: var(--_muted); background: var(--_subtle); border-color: var(--_border); }
.sr-only { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
[hidden] { display: none !important; }
svg .rim { fill: var(--_surface); }
svg .tread { stroke: var(--_surface); opacity: .35; }
.head .logo-box {
  width: 48px; height: 48px; flex: none; display: grid; place-items: center;
  border-radius: calc(var(--_radius) * .9); color: var(--_accent);
  background: color-mix(in srgb, var(--_accent) 12%, var(--_surface));
}
.head .logo-box svg { width: 30px; height: 30px; }
`;

  const CATALOG_CSS = `
.search .row { display: flex; gap: 8px; }
.search .field { position: relative; flex: 1; }
.search .field svg { position: absolute; left: 12px; top: 50%; width: 18px; height: 18px; transform: translateY(-50%); color: var(--_muted); pointer-events: none; }
.search input { padding-left: 38px; }
.status { margin: 14px 0 10px; font-size: .9rem; color: var(--_muted); }
.status:empty { margin: 0; }
.results { list-style: none; margin: 0; padding: 0; display: grid; gap: 10px; }
.item {
  display: grid; grid-template-columns: 44px 1fr auto; gap: 14px; align-items: center;
  padding: 14px 16px; border: 1px solid var(--_border); border-radius: calc(var(--_radius) * .8); background: var(--_surface);
}
.item .icon { width: 44px; height: 44px; color: #2f3640; }
.item .sku { margin: 2px 0 0; font: 500 .8rem/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: var(--_muted); letter-spacing: .02em; }
.item .size { color: var(--_text); font-weight: 600; }
.item .desc { margin: 6px 0 0; font-size: .9rem; color: var(--_muted); }
.item .subtitle a { color: inherit; text-decoration: underline; text-decoration-color: var(--_border); text-underline-offset: 3px; }
.item .subtitle a:hover { text-decoration-color: currentColor; }
.item .side { display: flex; flex-direction: column; align-items: flex-end; gap: 8px; }
.item .claim { padding: 4px 10px; font-size: .8rem; }
.item.skeleton { min-height: 74px; background: linear-gradient(90deg, var(--_subtle) 25%, #eceff3 50%, var(--_subtle) 75%) 0 0 / 200% 100%; border-color: transparent; animation: shimmer 1.2s linear infinite; }
@keyframes shimmer { to { background-position: -200% 0; } }
@media (prefers-reduced-motion: reduce) { .item.skeleton { animation: none; } }
.empty { text-align: center; padding: 28px 16px; border: 1px dashed var(--_border); border-radius: calc(var(--_radius) * .8); color: var(--_muted); }
.empty strong { display: block; color: var(--_text); margin-bottom: 4px; }
.more { margin-top: 14px; width: 100%; }
@container (max-width: 520px) {
  .card { padding: 18px; }
  .item { grid-template-columns: 36px 1fr; }
  .item .icon { width: 36px; height: 36px; }
  .item .side { grid-column: 2; align-items: flex-start; }
}
@container (max-width: 440px) {
  .search .row { flex-direction: column; }
}
`;

  const CLAIM_CSS = `
.grid { display: grid; grid-template-columns: repeat(6, 1fr); gap: 16px 18px; }
.span2 { grid-column: span 2; }
.span3 { grid-column: span 3; }
.span6 { grid-column: 1 / -1; }
.counter { float: right; font-weight: 400; color: var(--_muted); font-size: .8rem; }
.actions { display: flex; gap: 10px; align-items: center; margin-top: 20px; flex-wrap: wrap; }
.fine { font-size: .8rem; color: var(--_muted); margin: 0; }
fieldset.plain { border: 0; margin: 0; padding: 0; min-width: 0; }
fieldset.plain:disabled { opacity: .55; }
.success {
  border: 1px solid color-mix(in srgb, var(--_success) 35%, transparent);
  background: color-mix(in srgb, var(--_success) 6%, var(--_surface));
  border-radius: calc(var(--_radius) * .8); padding: 20px; display: flex; gap: 14px; align-items: flex-start;
}
.success > svg { width: 32px; height: 32px; flex: none; color: var(--_success); }
.success .number { display: block; font: 700 1.6rem/1.2 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; letter-spacing: .03em; margin: 6px 0; }
.success p { margin: 6px 0 0; color: var(--_muted); font-size: .925rem; }
.success .actions { margin-top: 14px; }
.lookup { margin-top: 26px; padding-top: 22px; border-top: 1px solid var(--_border); }
.lookup .subtitle { margin-bottom: 4px; }
.lookup .row { display: grid; grid-template-columns: 1fr 1.35fr auto; gap: 12px; align-items: start; margin-top: 14px; }
.lookup .row button { margin-top: 28px; }
.result { margin-top: 14px; padding: 14px 16px; border-radius: calc(var(--_radius) * .8); background: var(--_subtle); display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
.result .num { font: 600 .95rem ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.result.missing { color: var(--_muted); }
@container (max-width: 560px) {
  .card { padding: 18px; }
  .grid, .lookup .row { grid-template-columns: 1fr; }
  .span2, .span3 { grid-column: 1 / -1; }
  .lookup .row button { margin-top: 0; }
}
`;

  // Constructable sheets are shared by every instance and are not blocked by a page's CSP for inline styles.
  const sheets = new Map();
  function sheetFor(css) {
    if (!sheets.has(css)) {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      sheets.set(css, sheet);
    }
    return sheets.get(css);
  }
  function applyStyles(root, css) {
    if ('adoptedStyleSheets' in ShadowRoot.prototype && 'replaceSync' in CSSStyleSheet.prototype) root.adoptedStyleSheets = [sheetFor(BASE_CSS), sheetFor(css)];
    else root.append(h('style', { text: BASE_CSS + css }));
  }

  /* ---------- the portal API ---------- */

  class PortalError extends Error {
    constructor(kind, title, detail, extra) {
      super(title);
      this.kind = kind;
      this.title = title;
      this.detail = detail || '';
      Object.assign(this, extra || {});
    }
  }

  function gatewayOf(el) {
    return (el.getAttribute('data-gateway') || SCRIPT_ORIGIN).replace(/\/+$/, '');
  }

  /**
   * A refused origin fails the CORS preflight, which a page sees only as a network error. An opaque no-cors request
   * to the widget script tells the two apart: it succeeds when the gateway is up (so CORS refused this site).
   */
  async function explainNetworkFailure(gateway) {
    try {
      await fetch(`${gateway}/portal/widget.js`, { method: 'HEAD', mode: 'no-cors', cache: 'no-store', credentials: 'omit' });
      return notAllowed();
    } catch {
      return new PortalError('unreachable', 'The service can’t be reached right now.', 'Check your connection and try again in a moment.');
    }
  }

  const notAllowed = () =>
    new PortalError('forbidden_origin', 'This site is not allowed to use this key.', '', {
      developer: `${location.origin} is not on the portal key’s list of origins (or the gateway refused the request). Add it with \`gateway portal-keys\` --origins.`,
    });

  function errorFrom(response, body) {
    const message = body && typeof body.error === 'string' ? body.error : '';
    const details = body && Array.isArray(body.details) ? body.details : [];
    if (response.status === 401) return new PortalError('unauthorized', 'This widget’s portal key is not valid.', '', { developer: `the gateway refused the portal key in data-key (401: ${message || 'unknown or revoked key'}).` });
    if (response.status === 403) return notAllowed();
    if (response.status === 404) return new PortalError('not_found', 'Not found.', message);
    if (response.status === 429) {
      const seconds = Number(response.headers.get('retry-after')) || 0;
      const wait = seconds > 0 ? `Please try again in ${seconds} second${seconds === 1 ? '' : 's'}.` : 'Please try again in a moment.';
      return new PortalError('rate_limited', 'Too many requests right now.', wait);
    }
    // 400: the input's form; 422: well formed but refused (unknown_sku): both name the field in details.
    if (response.status === 400 || response.status === 422) return new PortalError('invalid_input', message || 'Some fields need attention.', '', { details });
    return new PortalError('server', 'Something went wrong on our side.', `Please try again later${body && body.request_id ? ` (reference ${body.request_id})` : ''}.`);
  }

  async function portalFetch(el, path, init) {
    const key = (el.getAttribute('data-key') || '').trim();
    if (!key) throw new PortalError('missing_key', 'This widget has no portal key.', '', { developer: 'the element has no data-key: add data-key="pk_portal_dealer_…".' });
    const gateway = gatewayOf(el);
    const { idempotencyKey, ...request } = init || {};
    const headers = { 'X-Portal-Key': key, Accept: 'application/json' };
    if (request.body) headers['Content-Type'] = 'application/json';
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    let response;
    try {
      response = await fetch(gateway + API_PATH + path, { ...request, headers, mode: 'cors', credentials: 'omit' });
    } catch (err) {
      if (err && err.name === 'AbortError') throw err;
      throw await explainNetworkFailure(gateway);
    }
    // An answer that is not JSON (a proxy's error page) is judged by its status alone.
    const body = await response.json().catch(() => null);
    if (response.ok && body && body.ok === true) return body;
    throw errorFrom(response, body);
  }

  /** 128 random bits in hex (getRandomValues works on plain-http pages too, unlike randomUUID). */
  function newIdempotencyKey() {
    return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  }

  function errorNotice(error, retry) {
    const title = error instanceof PortalError ? error.title : 'Something went wrong.';
    const detail = error instanceof PortalError ? error.detail : 'Please try again.';
    return h(
      'div',
      { class: 'notice', role: 'alert', part: 'error' },
      svg(ICONS.alert),
      h('div', {}, h('strong', { text: title }), detail ? h('p', { text: detail }) : null, retry ? h('button', { type: 'button', class: 'secondary', onclick: retry, text: 'Try again' }) : null),
    );
  }

  /** The card's heading level from data-heading-level (1-6, default 2); the headings inside it one level below. */
  function headingLevel(el) {
    const n = Number(el.getAttribute('data-heading-level'));
    return Number.isInteger(n) && n >= 1 && n <= 6 ? n : 2;
  }
  const heading = (level, attrs, ...children) => h(`h${Math.min(level, 6)}`, attrs, ...children);

  /** Setting-up problems are the site owner's to fix: the customer sees that the widget is unavailable, the developer the reason. */
  const SETUP_KINDS = ['forbidden_origin', 'unauthorized', 'missing_key'];
  function forCustomer(err, what, el) {
    if (!(err instanceof PortalError) || !SETUP_KINDS.includes(err.kind)) return err;
    console.warn(`<${el.localName}>: ${err.developer}`);
    return new PortalError(err.kind, `${what} is not available on this site right now.`, 'Please contact the store, or try again later.');
  }

  let ids = 0;
  const uid = (name) => `tire-${name}-${++ids}`;

  /** A row's link from the template: `{sku}` URL-encoded; only http(s) URLs, absolute or relative to the page. */
  function actionUrl(template, sku) {
    try {
      const url = new URL(template.replace(/\{sku\}/g, encodeURIComponent(sku)), document.baseURI);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
    } catch {
      return null;
    }
  }

  /** Two widgets one after the other in normal flow get a gap; in a grid or flex container the page's own gap spaces them. */
  function markStacked(el) {
    const next = el.nextElementSibling;
    const parent = el.parentElement;
    const flow = parent ? getComputedStyle(parent).display : 'block';
    const stacked = !!next && /^tire-/.test(next.localName) && !/grid|flex/.test(flow);
    el.shadowRoot.querySelector('.card').classList.toggle('stacked', stacked);
  }

  /* ---------- <tire-catalog> ---------- */

  class TireCatalog extends HTMLElement {
    static get observedAttributes() {
      return ['data-key', 'data-gateway'];
    }

    constructor() {
      super();
      this.attachShadow({ mode: 'open' });
      applyStyles(this.shadowRoot, CATALOG_CSS);
      this.controller = null;
      this.products = [];
      this.cursor = null;
      this.query = '';
      this.render();
    }

    connectedCallback() {
      markStacked(this);
      if (!this.loaded) this.search('');
    }

    attributeChangedCallback(_name, before, after) {
      if (this.isConnected && this.loaded && before !== after) this.search(this.query);
    }

    render() {
      const inputId = uid('q');
      const title = this.getAttribute('data-heading') || 'Find your tires';
      this.level = headingLevel(this);
      this.input = h('input', { id: inputId, type: 'search', name: 'q', autocomplete: 'off', maxlength: 100, placeholder: 'Size or brand, e.g. 225/45R17', part: 'input' });
      this.button = h('button', { type: 'submit', part: 'button', text: 'Search' });
      this.status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
      this.errorSlot = h('div', {});
      this.list = h('ul', { class: 'results', 'aria-label': 'Tires', 'aria-busy': 'false', part: 'results' });
      this.empty = h('div', { class: 'empty', hidden: true });
      this.more = h('button', { type: 'button', class: 'secondary more', hidden: true, onclick: () => this.loadMore(), text: 'Show more tires' });
      const form = h(
        'form',
        { class: 'search', role: 'search', onsubmit: (event) => (event.preventDefault(), this.search(this.input.value.trim())) },
        h('label', { for: inputId, text: 'Search the catalog' }),
        h('div', { class: 'row' }, h('div', { class: 'field' }, svg(ICONS.search), this.input), this.button),
      );
      const titleId = uid('title');
      this.shadowRoot.append(
        h(
          'section',
          { class: 'card', 'aria-labelledby': titleId, part: 'card' },
          h('div', { class: 'head' }, h('div', { class: 'logo-box' }, svg(ICONS.tire)), h('div', {}, heading(this.level, { id: titleId, class: 'title', text: title }), h('p', { class: 'sub', text: 'Search our range and check availability before you visit.' }))),
          form,
          this.status,
          this.errorSlot,
          this.list,
          this.empty,
          this.more,
        ),
      );
    }

    limit() {
      const n = Number(this.getAttribute('data-limit'));
      return Number.isInteger(n) && n >= 1 && n <= 100 ? n : 10;
    }

    async search(query) {
      this.loaded = true;
      this.query = query;
      this.products = [];
      this.cursor = null;
      await this.fetchPage(true);
    }

    async loadMore() {
      if (this.cursor) await this.fetchPage(false);
    }

    async fetchPage(fresh) {
      if (this.controller) this.controller.abort();
      const controller = new AbortController();
      this.controller = controller;
      const params = new URLSearchParams({ limit: String(this.limit()) });
      if (this.query) params.set('q', this.query);
      if (!fresh && this.cursor) params.set('cursor', this.cursor);
      this.showLoading(fresh);
      try {
        const body = await portalFetch(this, `/products?${params}`, { signal: controller.signal });
        if (controller !== this.controller) return;
        this.products = this.products.concat(Array.isArray(body.products) ? body.products : []);
        this.cursor = body.next_cursor || null;
        this.showResults();
      } catch (err) {
        if (err && err.name === 'AbortError') return;
        this.showError(err);
      } finally {
        if (controller === this.controller) {
          this.controller = null;
          this.button.disabled = false;
          this.more.disabled = false;
          this.list.setAttribute('aria-busy', 'false');
        }
      }
    }

    showLoading(fresh) {
      this.button.disabled = true;
      this.more.disabled = true;
      this.errorSlot.replaceChildren();
      this.empty.hidden = true;
      this.list.setAttribute('aria-busy', 'true');
      this.status.classList.remove('sr-only');
      this.status.textContent = this.query ? `Searching for “${this.query}”…` : 'Loading the catalog…';
      if (fresh) this.list.replaceChildren(...[0, 1, 2].map(() => h('li', { class: 'item skeleton', 'aria-hidden': 'true' })));
    }

    showResults() {
      this.list.replaceChildren(...this.products.map((p) => this.item(p)));
      this.more.hidden = !this.cursor;
      const n = this.products.length;
      const tires = `${n} tire${n === 1 ? '' : 's'}`;
      if (n === 0) {
        // The empty state below says it on screen; the status line still tells screen readers.
        this.status.classList.add('sr-only');
        this.status.textContent = this.query ? `No tires match “${this.query}”.` : 'The catalog is empty.';
        this.empty.replaceChildren(
          h('strong', { text: this.query ? `No tires match “${this.query}”` : 'No tires to show yet' }),
          this.query ? 'Check the size or try a brand name. Sizes look like 225/45R17.' : 'Please check back soon.',
        );
        this.empty.hidden = false;
      } else {
        this.status.textContent = `${this.cursor ? 'Showing ' : ''}${tires}${this.query ? ` matching “${this.query}”` : ''}${this.cursor ? ', more available' : ''}.`;
      }
      this.dispatchEvent(new CustomEvent('tire-catalog:results', { detail: { query: this.query, count: n }, bubbles: true, composed: true }));
    }

    item(p) {
      const availability = Object.prototype.hasOwnProperty.call(AVAILABILITY, p.availability) ? p.availability : 'backorder';
      return h(
        'li',
        { class: 'item', part: 'item', 'data-sku': p.sku },
        svg(ICONS.tire, 'icon'),
        h(
          'div',
          {},
          heading(this.level + 1, { class: 'subtitle' }, this.actionLink(p)),
          // The normalized size first: shoppers compare rows by it, whatever spelling they searched with.
          h('p', { class: 'sku' }, p.tire_size ? [h('span', { class: 'size', part: 'size', text: p.tire_size }), ' · '] : null, `SKU ${p.sku}`),
          p.description ? h('p', { class: 'desc', text: p.description }) : null,
        ),
        h(
          'div',
          { class: 'side' },
          h('span', { class: `badge ${availability}`, part: 'badge', text: AVAILABILITY[availability] }),
          this.hasAttribute('data-claim-form')
            ? h('button', { type: 'button', class: 'secondary claim', part: 'claim-button', 'aria-label': `File a claim for ${p.name || p.sku}`, onclick: () => this.fileClaimFor(p), text: 'File a claim' })
            : null,
        ),
      );
    }

    /** The product's name, as a link when data-action-url gives a template (`/tires/{sku}`) that makes an http(s) URL. */
    actionLink(p) {
      const name = p.name || p.sku;
      const template = this.getAttribute('data-action-url');
      if (!template) return name;
      const href = actionUrl(template, p.sku);
      if (href) return h('a', { href, part: 'link', text: name });
      if (!this.warnedActionUrl) console.warn(`<tire-catalog>: data-action-url "${template}" does not make an http(s) or relative URL; rows are shown without links.`);
      this.warnedActionUrl = true;
      return name;
    }

    /** "File a claim" on a row: the page's claim form (data-claim-form's selector, else the first one) with this SKU. */
    fileClaimFor(p) {
      const selector = this.getAttribute('data-claim-form');
      let form;
      try {
        form = document.querySelector(selector || 'tire-warranty-claim');
      } catch {
        form = null;
      }
      if (!form || typeof form.prefill !== 'function') {
        console.warn(`<tire-catalog>: data-claim-form "${selector}" names no <tire-warranty-claim> on this page.`);
        return;
      }
      form.prefill({ sku: p.sku, name: p.name });
    }

    showError(err) {
      this.products = [];
      this.cursor = null;
      this.list.replaceChildren();
      this.more.hidden = true;
      this.empty.hidden = true;
      this.status.textContent = '';
      this.errorSlot.replaceChildren(errorNotice(forCustomer(err, 'The tire catalog', this), err && (err.kind === 'unreachable' || err.kind === 'rate_limited' || err.kind === 'server') ? () => this.search(this.query) : null));
      this.dispatchEvent(new CustomEvent('tire-catalog:error', { detail: { kind: err && err.kind }, bubbles: true, composed: true }));
    }
  }

  /* ---------- <tire-warranty-claim> ---------- */

  // The server's rules (POST /warranty-claims), checked here first so a customer sees them before sending.
  const CONTROL = '\\u0000-\\u001f\\u007f-\\u009f';
  const WHITESPACE = '\\u0020\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
  const INVISIBLE = '\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff';
  const IDENTIFIER = new RegExp(`^[^${CONTROL}${WHITESPACE}${INVISIBLE}]*$`);
  const FREE_TEXT_CONTROL = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f';
  const FREE_TEXT = new RegExp(`^[^${FREE_TEXT_CONTROL}]*$`);
  const EMAIL = /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

  const freeText = (v, max, empty) =>
    !v ? empty : v.length > max ? `Use at most ${max} characters.` : !FREE_TEXT.test(v) ? 'Remove the control characters from this text.' : '';

  /** A tire's DOT code: optional "DOT", 4-9 plant/size/option symbols (never G, I, O, Q, S or Z), a week+year date code. */
  function checkDot(v) {
    if (!v) return '';
    if (v.length > 40 || !/^[A-Za-z0-9 ]*$/.test(v)) return 'Use only letters, digits and spaces, at most 40.';
    let symbols = v.toUpperCase().replace(/ +/g, '');
    if (symbols.startsWith('DOT')) symbols = symbols.slice(3);
    const excluded = symbols.match(/[GIOQSZ]/);
    if (excluded) return `DOT codes never use the letter ${excluded[0]}: check for a 6, 1, 0, 5 or 2.`;
    const date = symbols.slice(-4);
    if (!/^\d{4}$/.test(date)) return 'A DOT code ends with 4 digits: the week and year it was made, e.g. 2319.';
    if (symbols.length < 8 || symbols.length > 13) return 'A DOT code has 8 to 13 letters and digits after “DOT”.';
    const week = Number(date.slice(0, 2));
    if (week < 1 || week > 53) return `The date code ${date} has no week ${date.slice(0, 2)} (weeks run 01-53).`;
    return '';
  }

  const CLAIM_FIELDS = [
    {
      name: 'customer_ref',
      span: 3,
      label: 'Invoice or order number',
      hint: 'It is your reference for this claim: you will need it to check the claim later.',
      attrs: { autocomplete: 'off', maxlength: 128, required: true },
      check: (v) => freeText(v, 128, 'Enter your invoice or order number.'),
    },
    {
      name: 'contact_email',
      span: 3,
      label: 'Email',
      hint: 'We use it only about this claim.',
      attrs: { type: 'email', autocomplete: 'email', maxlength: 254, required: true, spellcheck: 'false' },
      check: (v) => (!v ? 'Enter your email address.' : v.length > 254 || !EMAIL.test(v) ? 'Enter a valid email address, like name@example.com.' : ''),
    },
    {
      name: 'sku',
      span: 2,
      label: 'Tire SKU',
      optional: true,
      hint: 'Printed on your invoice.',
      attrs: { autocomplete: 'off', maxlength: 64, spellcheck: 'false' },
      check: (v) => (!IDENTIFIER.test(v) ? 'A SKU has no spaces or invisible characters.' : v.length > 64 ? 'Use at most 64 characters.' : ''),
    },
    {
      name: 'dot_number',
      span: 2,
      label: 'DOT number',
      optional: true,
      hint: 'The code after “DOT” on the tire’s sidewall.',
      attrs: { autocomplete: 'off', maxlength: 40, spellcheck: 'false' },
      check: checkDot,
    },
    {
      name: 'quantity',
      span: 2,
      label: 'Number of tires',
      optional: true,
      attrs: { inputmode: 'numeric', autocomplete: 'off', maxlength: 7 },
      check: (v) => (v && (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 1000000) ? 'Enter a whole number from 1 to 1,000,000.' : ''),
    },
    {
      name: 'description',
      span: 6,
      label: 'What happened?',
      textarea: true,
      hint: 'Describe the problem: where the damage is, when you noticed it, and the mileage if you know it.',
      attrs: { maxlength: 4000, required: true, rows: 5 },
      check: (v) => freeText(v, 4000, 'Describe the problem with the tire.'),
    },
  ];

  class TireWarrantyClaim extends HTMLElement {
    constructor() {
      super();
      this.attachShadow({ mode: 'open' });
      applyStyles(this.shadowRoot, CLAIM_CSS);
      this.fields = {};
      this.render();
    }

    connectedCallback() {
      markStacked(this);
      if (!this.checked) this.checkAvailable();
    }

    /** Once at load: whether this site may use the key, so a customer never fills in a form that cannot be sent. */
    async checkAvailable() {
      this.checked = true;
      try {
        await portalFetch(this, '/products?limit=1', {});
      } catch (err) {
        if (err instanceof PortalError && SETUP_KINDS.includes(err.kind)) this.showUnavailable(err);
      }
    }

    showUnavailable(err) {
      this.unavailable = true;
      this.formError.replaceChildren(errorNotice(forCustomer(err, 'This form', this)));
      for (const fieldset of this.shadowRoot.querySelectorAll('fieldset')) fieldset.disabled = true;
      // Looking a claim up needs the same key: no use offering it.
      this.lookupEl.hidden = true;
      this.dispatchEvent(new CustomEvent('tire-warranty-claim:unavailable', { detail: { kind: err.kind }, bubbles: true, composed: true }));
    }

    /** Called by a catalog row's "File a claim": the SKU filled in, the form in view, the next field to fill focused. */
    prefill({ sku }) {
      if (this.form.hidden) this.reset();
      this.fields.sku.control.value = String(sku);
      this.checkField('sku');
      this.scrollIntoView({ block: 'start', behavior: matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth' });
      const next = ['customer_ref', 'contact_email', 'description'].find((name) => !this.value(name)) || 'sku';
      this.fields[next].control.focus({ preventScroll: true });
      this.prefilledStatus.textContent = `Tire SKU ${sku} filled in.`;
    }

    render() {
      const titleId = uid('title');
      const title = this.getAttribute('data-heading') || 'Warranty claim';
      this.level = headingLevel(this);
      this.prefilledStatus = h('p', { class: 'sr-only', role: 'status' });
      this.formError = h('div', {});
      this.submit = h('button', { type: 'submit', part: 'button', text: 'Submit claim' });
      this.form = h(
        'form',
        { novalidate: true, part: 'form', onsubmit: (event) => (event.preventDefault(), this.file()) },
        this.formError,
        this.prefilledStatus,
        h(
          'fieldset',
          { class: 'plain' },
          h('div', { class: 'grid' }, CLAIM_FIELDS.map((field) => this.field(field))),
          h('div', { class: 'actions' }, this.submit, h('p', { class: 'fine', text: 'Fields without “optional” are required.' })),
        ),
      );
      this.success = h('div', { hidden: true });
      this.shadowRoot.append(
        h(
          'section',
          { class: 'card', 'aria-labelledby': titleId, part: 'card' },
          h('div', { class: 'head' }, h('div', { class: 'logo-box' }, svg(ICONS.tire)), h('div', {}, heading(this.level, { id: titleId, class: 'title', text: title }), h('p', { class: 'sub', text: 'Tell us about a tire you bought from us, or check a claim you filed.' }))),
          this.form,
          this.success,
          this.lookupSection(),
        ),
      );
    }

    field(spec) {
      const id = uid(spec.name);
      const hintId = `${id}-hint`;
      const errorId = `${id}-error`;
      const control = h(spec.textarea ? 'textarea' : 'input', {
        id,
        name: spec.name,
        type: spec.textarea ? undefined : 'text',
        'aria-describedby': `${spec.hint ? `${hintId} ` : ''}${errorId}`,
        ...spec.attrs,
      });
      const error = h('p', { class: 'field-error', id: errorId });
      this.fields[spec.name] = { spec, control, error };
      const label = h('label', { for: id }, spec.label, spec.optional ? h('span', { class: 'opt', text: ' (optional)' }) : null);
      if (spec.name === 'description') {
        const counter = h('span', { class: 'counter', 'aria-hidden': 'true', text: '0 / 4000' });
        control.addEventListener('input', () => (counter.textContent = `${control.value.trim().length} / 4000`));
        label.prepend(counter);
      }
      control.addEventListener('input', () => {
        if (control.getAttribute('aria-invalid') === 'true') this.checkField(spec.name);
      });
      return h('div', { class: `span${spec.span}` }, label, control, spec.hint ? h('p', { class: 'hint', id: hintId, text: spec.hint }) : null, error);
    }

    value(name) {
      return this.fields[name].control.value.trim();
    }

    setFieldError(name, message) {
      const { control, error } = this.fields[name];
      error.textContent = message;
      if (message) control.setAttribute('aria-invalid', 'true');
      else control.removeAttribute('aria-invalid');
    }

    checkField(name) {
      const message = this.fields[name].spec.check(this.value(name));
      this.setFieldError(name, message);
      return message;
    }

    async file() {
      if (this.unavailable) return;
      this.formError.replaceChildren();
      const invalid = CLAIM_FIELDS.map((f) => f.name).filter((name) => this.checkField(name));
      if (invalid.length) {
        this.formError.replaceChildren(this.summary(`Please correct ${invalid.length === 1 ? 'the highlighted field' : `${invalid.length} highlighted fields`}.`, invalid));
        this.fields[invalid[0]].control.focus();
        return;
      }
      const claim = { description: this.value('description'), customer_ref: this.value('customer_ref'), contact_email: this.value('contact_email') };
      if (this.value('sku')) claim.sku = this.value('sku');
      if (this.value('dot_number')) claim.dot_number = this.value('dot_number');
      if (this.value('quantity')) claim.quantity = Number(this.value('quantity'));
      const json = JSON.stringify(claim);
      // The same claim sent again after a failure keeps its key: an answer lost on the way cannot file it twice.
      if (!this.pending || this.pending.json !== json) this.pending = { json, key: newIdempotencyKey() };
      this.submit.disabled = true;
      this.submit.textContent = 'Sending…';
      try {
        const body = await portalFetch(this, '/warranty-claims', { method: 'POST', body: json, idempotencyKey: this.pending.key });
        this.pending = null;
        this.showFiled(body, claim.customer_ref);
      } catch (err) {
        this.showServerError(err);
      } finally {
        this.submit.disabled = false;
        this.submit.textContent = 'Submit claim';
      }
    }

    showServerError(err) {
      const details = (err && err.details) || [];
      let first = null;
      for (const detail of details) {
        const path = Array.isArray(detail.path) ? detail.path : String(detail.path || '').split(/[./]/);
        const name = path.filter(Boolean).pop();
        if (name && this.fields[name]) {
          this.setFieldError(name, String(detail.message || 'Check this field.'));
          first = first || name;
        }
      }
      const named = Object.keys(this.fields).filter((name) => this.fields[name].error.textContent);
      const correct = `Please correct ${named.length === 1 ? 'the highlighted field' : `${named.length} highlighted fields`}.`;
      this.formError.replaceChildren(first ? this.summary(correct, named) : errorNotice(forCustomer(err, 'This form', this)));
      if (first) this.fields[first].control.focus();
    }

    /** The error summary: what went wrong, and a link to each field to fix (the link moves focus to the field). */
    summary(title, names) {
      const links = names.map((name) => {
        const { spec, control, error } = this.fields[name];
        const go = (event) => (event.preventDefault(), control.focus());
        return h('li', {}, h('a', { href: `#${control.id}`, onclick: go, text: `${spec.label}: ${error.textContent}` }));
      });
      return h(
        'div',
        { class: 'notice summary', role: 'alert', part: 'error' },
        svg(ICONS.alert),
        h('div', {}, h('strong', { text: title }), h('ul', {}, links)),
      );
    }

    showFiled(body, customerRef) {
      const number = String(body.claim_number);
      const status = String(body.status || 'submitted');
      const received = heading(this.level + 1, { class: 'subtitle', tabindex: '-1', text: 'Claim received' });
      this.success.replaceChildren(
        h(
          'div',
          { class: 'success', role: 'status', part: 'success' },
          svg(ICONS.check),
          h(
            'div',
            {},
            received,
            h('p', { text: 'Your claim number is' }),
            h('strong', { class: 'number', 'data-claim-number': number, text: number }),
            h('div', {}, h('span', { class: `badge ${status}`, text: CLAIM_STATUS[status] || humanize(status) })),
            h('p', { text: 'Keep this number with your invoice or order number: you need both to check the claim’s status.' }),
            h(
              'div',
              { class: 'actions' },
              h('button', { type: 'button', onclick: () => this.lookup(number, customerRef), text: 'Check its status' }),
              h('button', { type: 'button', class: 'secondary', onclick: () => this.reset(), text: 'File another claim' }),
            ),
          ),
        ),
      );
      this.form.hidden = true;
      this.success.hidden = false;
      received.focus();
      this.dispatchEvent(new CustomEvent('tire-warranty-claim:filed', { detail: { claim_number: number, status }, bubbles: true, composed: true }));
    }

    reset() {
      this.form.reset();
      for (const name of Object.keys(this.fields)) this.setFieldError(name, '');
      this.formError.replaceChildren();
      this.success.hidden = true;
      this.form.hidden = false;
      this.fields.customer_ref.control.focus();
    }

    lookupSection() {
      const numberId = uid('claim');
      const refId = uid('ref');
      this.lookupNumber = h('input', { id: numberId, name: 'claim_number', autocomplete: 'off', maxlength: 32, placeholder: 'WC-000042', spellcheck: 'false', 'aria-describedby': `${numberId}-error` });
      this.lookupRef = h('input', { id: refId, name: 'customer_ref', autocomplete: 'off', maxlength: 128, 'aria-describedby': `${refId}-error` });
      this.lookupNumberError = h('p', { class: 'field-error', id: `${numberId}-error` });
      this.lookupRefError = h('p', { class: 'field-error', id: `${refId}-error` });
      this.lookupButton = h('button', { type: 'submit', class: 'secondary', text: 'Check status' });
      this.lookupResult = h('div', { role: 'status', 'aria-live': 'polite' });
      this.lookupEl = h(
        'div',
        { class: 'lookup', part: 'lookup' },
        heading(this.level + 1, { class: 'subtitle', text: 'Check a claim’s status' }),
        h('p', { class: 'sub', text: 'Enter the claim number we gave you and the invoice or order number you filed it with.' }),
        h(
          'form',
          { novalidate: true, onsubmit: (event) => (event.preventDefault(), this.lookup(this.lookupNumber.value, this.lookupRef.value)) },
          h(
            'div',
            { class: 'row' },
            h('div', {}, h('label', { for: numberId, text: 'Claim number' }), this.lookupNumber, this.lookupNumberError),
            h('div', {}, h('label', { for: refId, text: 'Invoice or order number on the claim' }), this.lookupRef, this.lookupRefError),
            this.lookupButton,
          ),
        ),
        this.lookupResult,
      );
      return this.lookupEl;
    }

    async lookup(rawNumber, rawRef) {
      const number = String(rawNumber).trim().toUpperCase();
      const ref = String(rawRef).trim();
      this.lookupNumber.value = number;
      this.lookupRef.value = ref;
      const numberError = !number ? 'Enter the claim number.' : number.length > 32 || !IDENTIFIER.test(number) ? 'Enter the claim number as we gave it, e.g. WC-000042.' : '';
      const refError = freeText(ref, 128, 'Enter the invoice or order number you filed the claim with.');
      for (const [input, out, message] of [[this.lookupNumber, this.lookupNumberError, numberError], [this.lookupRef, this.lookupRefError, refError]]) {
        out.textContent = message;
        if (message) input.setAttribute('aria-invalid', 'true');
        else input.removeAttribute('aria-invalid');
      }
      if (numberError || refError) return (numberError ? this.lookupNumber : this.lookupRef).focus();
      this.lookupButton.disabled = true;
      this.lookupResult.replaceChildren(h('p', { class: 'fine', text: 'Looking up the claim…' }));
      try {
        const body = await portalFetch(this, `/warranty-claims/${encodeURIComponent(number)}?${new URLSearchParams({ customer_ref: ref })}`, {});
        const status = String(body.status);
        this.lookupResult.replaceChildren(
          h('div', { class: 'result', part: 'status' }, h('span', { text: 'Claim ' }), h('span', { class: 'num', text: String(body.claim_number) }), h('span', { class: `badge ${status}`, 'data-status': status, text: CLAIM_STATUS[status] || humanize(status) })),
        );
      } catch (err) {
        this.lookupResult.replaceChildren(
          err && err.kind === 'not_found'
            ? h('div', { class: 'result missing', part: 'status' }, 'We couldn’t find a claim with that number and reference. Check both and try again.')
            : errorNotice(forCustomer(err, 'Checking a claim', this)),
        );
      } finally {
        this.lookupButton.disabled = false;
      }
    }
  }

  customElements.define('tire-catalog', TireCatalog);
  customElements.define('tire-warranty-claim', TireWarrantyClaim);
})();
