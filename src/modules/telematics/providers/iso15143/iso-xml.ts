import { SaxesParser } from 'saxes';
import { pace } from '../../../../platform/core/pacer.js';
import { VendorUnavailableError } from '../adapter.js';

/**
 * ISO 15143-3 documents as small trees keyed by local name (any namespace prefix or URI), one per child of the root:
 * a `Links`, an `Equipment`, a `Location` reading. XML is parsed as a stream, so only the child being read is held.
 * The root's attributes (`snapshotTime`, `version`) come first as leaves, the way JSON feeds write them as plain keys.
 */
export interface IsoNode {
  name: string;
  attrs: Readonly<Record<string, string>>;
  text: string;
  children: IsoNode[];
}

/** The most of an XML body parsed at once: ~8 machines of a fleet page, ~2 ms of main thread under load. */
export const XML_PIECE_BYTES = 16 * 1024;

/** One root child bigger than this is a broken or hostile feed, not a machine. */
const MAX_NODES_PER_CHILD = 20_000;

/** A document that does not parse as ISO 15143-3; whoever knows the URL path turns it into VendorDocumentInvalidError. */
export class IsoDocumentError extends Error {
  constructor(readonly reason: string) {
    super(`unreadable ISO 15143-3 document: ${reason}`);
    this.name = 'IsoDocumentError';
  }
}

const unreadable = (why: string): IsoDocumentError => new IsoDocumentError(why);

/** Whitespace and a byte order mark before the first tag are not content: feeds send both, and saxes refuses them. */
const LEADING_BLANKS = /^[\s\uFEFF]+/;

/**
 * Streams the root's children of an XML document, yielding those completed by each piece of at most XML_PIECE_BYTES
 * (possibly none). The root's local name must be `root` (a 200 carrying an `<Error>` document is a failure, not an
 * empty fleet).
 */
export async function* xmlRootChildren(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, root: string): AsyncGenerator<IsoNode[]> {
  const parser = new SaxesParser({ xmlns: true, position: false });
  const decoder = new TextDecoder('utf-8');
  const stack: IsoNode[] = [];
  let done: IsoNode[] = [];
  let nodes = 0;
  let sawRoot = false;
  let failure: Error | undefined;

  parser.on('error', (err) => {
    failure ??= unreadable(err.message);
  });
  parser.on('opentag', (tag) => {
    const attrs: Record<string, string> = {};
    for (const attr of Object.values(tag.attributes)) {
      if (attr.prefix !== 'xmlns' && attr.name !== 'xmlns') attrs[attr.local] = attr.value;
    }
    if (!sawRoot) {
      sawRoot = true;
      if (tag.local !== root) failure ??= unreadable(`root element ${tag.local}, not ${root}`);
      for (const [name, text] of Object.entries(attrs)) done.push({ name, attrs: {}, text, children: [] });
      return;
    }
    const node: IsoNode = { name: tag.local, attrs, text: '', children: [] };
    stack.at(-1)?.children.push(node);
    stack.push(node);
    nodes += 1;
    if (nodes > MAX_NODES_PER_CHILD) failure ??= unreadable('an element too large');
  });
  const addText = (text: string): void => {
    const node = stack.at(-1);
    if (node !== undefined) node.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const node = stack.pop();
    if (node === undefined) return;
    node.text = node.text.trim();
    if (stack.length === 0) {
      done.push(node);
      nodes = 0;
    }
  });

  const flush = (): IsoNode[] => {
    if (failure !== undefined) throw failure;
    const out = done;
    done = [];
    return out;
  };
  let started = false;
  const write = (text: string): void => {
    const rest = started ? text : text.replace(LEADING_BLANKS, '');
    started ||= rest !== '';
    if (rest !== '') parser.write(rest);
  };
  try {
    for await (const chunk of chunks) {
      // A piece at a time, each handed on even when it completed nothing: a consumer reading in rounds gets its turn
      // back after every piece, not after a whole chunk (up to 64 KiB) of a page.
      for (let at = 0; at < chunk.length; at += XML_PIECE_BYTES) {
        write(decoder.decode(chunk.subarray(at, at + XML_PIECE_BYTES), { stream: true }));
        yield flush();
      }
    }
    write(decoder.decode());
    parser.close();
  } catch (err) {
    throw err instanceof VendorUnavailableError || err instanceof IsoDocumentError ? err : unreadable(err instanceof Error ? err.message : 'parse error');
  }
  const last = flush();
  if (!sawRoot) throw unreadable('no root element');
  if (last.length > 0) yield last;
}

/** Keys that only declare namespaces, as XML-to-JSON converters copy them (`xmlns`, `@xmlns:aemp`). */
const NAMESPACE_KEY = /^@?xmlns(?::|$)/;

/** A key's local name: without a namespace prefix (`aemp:Equipment`) or a converter's attribute mark (`@datetime`). */
const localName = (key: string): string => key.replace(/^@/, '').replace(/^[^:]*:/, '');

/** A JSON value as the same tree: object keys become children (`@` keys attributes), arrays repeated children, primitives text. */
function jsonNode(name: string, value: unknown): IsoNode[] {
  if (Array.isArray(value)) return value.flatMap((item) => jsonNode(name, item));
  if (typeof value === 'object' && value !== null) {
    const attrs: Record<string, string> = {};
    const children: IsoNode[] = [];
    for (const [key, v] of Object.entries(value)) {
      if (NAMESPACE_KEY.test(key)) continue;
      if (key.startsWith('@') && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) attrs[localName(key)] = String(v);
      else children.push(...jsonNode(localName(key), v));
    }
    return [{ name, attrs, text: '', children }];
  }
  return [{ name, attrs: {}, text: typeof value === 'string' ? value.trim() : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '', children: [] }];
}

/** A fleet or data element document: an object holding one of the list keys, in any case, namespaced or not. */
function isDocument(value: unknown, listKeys: readonly string[]): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const wanted = new Set(listKeys.map((key) => key.toLowerCase()));
  return Object.keys(value).some((key) => wanted.has(localName(key).toLowerCase()));
}

/**
 * The root's children of a JSON ISO document (the root object itself; feeds drop its name), or of each document of a
 * top-level array (feeds wrap the page in one). Leaves (`snapshotTime`) come first, as XML's root attributes do.
 */
export function jsonRootChildren(body: string, listKeys: readonly string[]): IsoNode[] {
  let doc: unknown;
  try {
    doc = JSON.parse(body.replace(LEADING_BLANKS, '')) as unknown;
  } catch (err) {
    throw unreadable(err instanceof Error ? err.message : 'not JSON');
  }
  const docs = Array.isArray(doc) ? doc : [doc];
  if (docs.length === 0 || !docs.every((d) => isDocument(d, listKeys))) throw unreadable(`not a document with ${listKeys.join(' or ')}`);
  const nodes = docs.flatMap((d) => jsonNode('', d).flatMap((root) => [...Object.entries(root.attrs).map(([name, text]) => ({ name, attrs: {}, text, children: [] })), ...root.children]));
  return [...nodes.filter((n) => n.children.length === 0), ...nodes.filter((n) => n.children.length > 0)];
}

/** Every root child of a document held whole (the connect check's first page), read exactly as a poll reads it. */
export async function documentChildren(format: 'xml' | 'json', body: string, root: string, listKeys: readonly string[]): Promise<IsoNode[]> {
  if (format === 'json') return jsonRootChildren(body, listKeys);
  const out: IsoNode[] = [];
  for await (const nodes of xmlRootChildren([new TextEncoder().encode(body)], root)) {
    out.push(...nodes);
    // A fleet's first page read whole at connect (2,000 machines: ~70 ms) gives the request thread back between pieces.
    await pace();
  }
  return out;
}

/** True for a `Links` element, whatever its case (JSON feeds write `links`). */
export const isLinks = (node: IsoNode): boolean => node.name.toLowerCase() === 'links';

export function child(node: IsoNode, name: string): IsoNode | undefined {
  const lower = name.toLowerCase();
  return node.children.find((c) => c.name.toLowerCase() === lower);
}

/** The text of a child element, or of an attribute of that name (`datetime` comes either way). */
export function valueOf(node: IsoNode, name: string): string | undefined {
  const lower = name.toLowerCase();
  const attr = Object.entries(node.attrs).find(([k]) => k.toLowerCase() === lower)?.[1];
  const text = attr ?? child(node, name)?.text;
  return text === undefined || text === '' ? undefined : text;
}
