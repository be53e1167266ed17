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

/** Root children of a JSON page handed on per round; the parse itself is the first round. */
const JSON_NODES_PER_PIECE = 10;

const isHeader = (node: IsoNode): boolean => node.name.toLowerCase() === 'equipmentheader';

function* jsonPage(body: string, root: string): Generator<IsoNode[]> {
  const children = jsonRootChildren(body, ['Links', root === 'Fleet' ? 'Equipment' : root]);
  // JSON feeds may put a series' header after the readings it names: handed on first, it names every piece's readings.
  const nodes = [...children.filter(isHeader), ...children.filter((node) => !isHeader(node))];
  yield [];
  for (let at = 0; at < nodes.length; at += JSON_NODES_PER_PIECE) yield nodes.slice(at, at + JSON_NODES_PER_PIECE);
}

/**
 * Reads pages from the feed's first (1, or 0 where configured), handing each piece of a page's root children (links
 * excluded) to `read` as it arrives and yielding what it answers. With `ctx.yields`, parsing a piece and reading it is
 * one round, ended before the answer is yielded (so the caller may write it in a round of its own); the vendor's budget
 * and the request are outside it. Links are only ever read for a page number: every request goes to the configured
 * endpoint (`baseUrl` when another host serves the document), so a feed's links cannot send credentials elsewhere.
 */
export async function* pagedNodes<T>(
  ctx: ReaderContext,
  headers: Record<string, string>,
  pathOf: (page: number) => string,
  root: string,
  isContent: (node: IsoNode) => boolean,
  read: (nodes: IsoNode[]) => T,
  baseUrl?: string,
): AsyncGenerator<T> {
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
      // Generators: nothing is parsed before a piece's round begins.
      const pieces = xml
        ? xmlRootChildren((await streamVendor(provider.id, endpoint, { ...request, path })).body, root)
        : jsonPage((await callVendor(provider.id, endpoint, { ...request, path })).body, root);
      try {
        for (;;) {
          const grant = await ctx.yields?.granted();
          let piece: { value: T } | undefined;
          try {
            const next = await pieces.next();
            piece = next.done === true ? undefined : { value: read(take(next.value)) };
          } finally {
            if (grant !== undefined) ctx.yields?.end(grant);
          }
          if (piece === undefined) break;
          yield piece.value;
        }
      } finally {
        // A caller leaving early closes the answer.
        await pieces.return(undefined);
      }
    } catch (err) {
      // The parser knows why, only this loop knows where.
      throw err instanceof IsoDocumentError ? new VendorDocumentInvalidError(provider.id, path, err.reason) : err;
    }
    page = nextPage(page, links, hadContent, visited);
  }
}

