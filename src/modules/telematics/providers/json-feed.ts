import { VendorDocumentInvalidError } from './adapter.js';
import { refusedMessage } from './vendor-auth.js';
import { callVendor, parseJson } from './vendor-http.js';
import type { NormalizedEvent } from './event.js';
import { Batcher, dataHeaders, inRound, type ReaderContext, type VendorReader } from './reader.js';

/** Items of a list mapped to events in one round of a read that yields. */
const ITEMS_PER_ROUND = 25;

/** One authenticated GET of a vendor's JSON API; the parse is a round of the read's yields. */
export async function getJson(ctx: ReaderContext, headers: Record<string, string>, path: string): Promise<unknown> {
  const res = await callVendor(ctx.provider.id, ctx.endpoint, { path, headers: { ...headers, accept: 'application/json' }, rejected: refusedMessage(ctx.provider) });
  return inRound(ctx, () => parseJson(ctx.provider.id, res));
}

/** A list endpoint of a JSON API: where its items are and the events of one item. */
export interface JsonFeed {
  path: string;
  items(body: unknown): unknown[] | undefined;
  events(ctx: ReaderContext, item: unknown): (NormalizedEvent | undefined)[];
}

/** Reads each feed of the provider in turn; an item the mapping cannot read is skipped, an answer without the list is the vendor failing. */
export function jsonFeedReader(feeds: Readonly<Record<string, readonly JsonFeed[]>>): VendorReader {
  return {
    async *snapshot(ctx) {
      const list = feeds[ctx.provider.id];
      if (list === undefined) throw new Error(`no reader mapping for ${ctx.provider.id}`);
      const headers = await dataHeaders(ctx);
      const batcher = new Batcher(ctx);
      for (const feed of list) {
        const items = feed.items(await getJson(ctx, headers, feed.path));
        if (items === undefined) throw new VendorDocumentInvalidError(ctx.provider.id, feed.path, 'the answer holds no list of items');
        for (let at = 0; at < items.length; at += ITEMS_PER_ROUND) {
          const batches = await inRound(ctx, () => {
            for (const item of items.slice(at, at + ITEMS_PER_ROUND)) for (const event of feed.events(ctx, item)) batcher.add(event);
            return batcher.fullBatches();
          });
          yield* batches;
        }
      }
      const rest = batcher.rest();
      if (rest !== undefined) yield rest;
    },
  };
}
