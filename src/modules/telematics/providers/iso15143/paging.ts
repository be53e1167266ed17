import { VendorDocumentInvalidError, VendorUnavailableError } from '../adapter.js';
import { refusedMessage } from '../vendor-auth.js';
import { callVendor, streamVendor } from '../vendor-http.js';
import { DEFAULT_MAX_PAGES, type ReaderContext } from '../reader.js';
import { IsoDocumentError, isLinks, jsonRootChildren, valueOf, xmlRootChildren, type IsoNode } from './iso-xml.js';

/** ISO 15143-3 paging: a document's pages followed through their `Links`, each page's root children yielded as read. */

interface PageLinks {
  self?: string;
  next?: string;
  last?: string;
}

/** The page number an ISO link names: its last path segment, as it stands (feeds counting from 0 start at 0). */
export function pageNumberOf(href: string | undefined): number | undefined {
  if (href === undefined || !URL.canParse(href, 'http://base.invalid/')) return undefined;
  const segment = new URL(href, 'http://base.invalid/').pathname.replace(/\/+$/, '').split('/').at(-1) ?? '';
  return /^\d{1,9}$/.test(segment) ? Number(segment) : undefined;
}

/**
 * The page to read after `page`, or undefined at the end: an empty page, self == last, no next link, or a next link
 * that does not go forward (feeds link the last page back to 0 or 1, or keep linking past the end).
 */
export function nextPage(page: number, links: PageLinks, hadContent: boolean, visited: ReadonlySet<number>): number | undefined {
  if (!hadContent) return undefined;
  const self = pageNumberOf(links.self) ?? page;
  const last = pageNumberOf(links.last);
  if (last !== undefined && self >= last) return undefined;
  const next = pageNumberOf(links.next);
  return next === undefined || next <= self || visited.has(next) ? undefined : next;
}

function linkOf(node: IsoNode, links: PageLinks): void {
  const rel = valueOf(node, 'rel')?.toLowerCase();
  const href = valueOf(node, 'href');
  if (href !== undefined && (rel === 'self' || rel === 'next' || rel === 'last')) links[rel] = href;
}

/** The feed's document format: the operator's override, else the catalog's. */
export const formatOf = (ctx: Pick<ReaderContext, 'provider' | 'endpoint'>): 'xml' | 'json' => ctx.endpoint.format ?? ctx.provider.format;

function* jsonPage(body: string, root: string): Generator<IsoNode[]> {
  yield jsonRootChildren(body, ['Links', root === 'Fleet' ? 'Equipment' : root]);
}

/**
 * Reads pages from the feed's first (1, or 0 where configured), yielding each page's root children (links excluded) as
 * they arrive. Links are only ever read for a page number: every request goes to the configured endpoint (`baseUrl`
 * when another host serves the document), so a feed's links cannot send credentials elsewhere.
 */
export async function* pagedNodes(
  ctx: ReaderContext,
  headers: Record<string, string>,
  pathOf: (page: number) => string,
  root: string,
  isContent: (node: IsoNode) => boolean,
  baseUrl?: string,
): AsyncGenerator<IsoNode[]> {
  const { provider, endpoint } = ctx;
  const maxPages = ctx.maxPages ?? DEFAULT_MAX_PAGES;
  const visited = new Set<number>();
  const xml = formatOf(ctx) === 'xml';
  const request = { path: '', ...(baseUrl === undefined ? {} : { baseUrl }), headers: { ...headers, accept: xml ? 'application/xml' : 'application/json' }, rejected: refusedMessage(provider) };
  for (let page: number | undefined = endpoint.firstPage ?? 1; page !== undefined; ) {
    if (visited.size >= maxPages) throw new VendorUnavailableError(`${provider.id} kept linking pages past ${maxPages}`, 'failed');
    visited.add(page);
    const links: PageLinks = {};
    let hadContent = false;
    const take = (nodes: IsoNode[]): IsoNode[] => {
      const content = nodes.filter((node) => {
        if (isLinks(node)) linkOf(node, links);
        return !isLinks(node);
      });
      hadContent ||= content.some(isContent);
      return content;
    };
    const path = pathOf(page);
    try {
      // Generators: nothing is parsed before the page's round begins.
      const pageNodes = xml
        ? xmlRootChildren((await streamVendor(provider.id, endpoint, { ...request, path })).body, root)
        : jsonPage((await callVendor(provider.id, endpoint, { ...request, path })).body, root);
      const grant = await ctx.yields?.granted();
      try {
        for await (const nodes of pageNodes) yield take(nodes);
      } finally {
        if (grant !== undefined) ctx.yields?.end(grant);
      }
    } catch (err) {
      // The parser knows why, only this loop knows where.
      throw err instanceof IsoDocumentError ? new VendorDocumentInvalidError(provider.id, path, err.reason) : err;
    }
    page = nextPage(page, links, hadContent, visited);
  }
}

