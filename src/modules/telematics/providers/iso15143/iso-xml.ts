import { SaxesParser } from 'saxes';
import { VendorUnavailableError } from '../adapter.js';
import { listAt } from '../json.js';

/**
 * ISO 15143-3 documents as small trees keyed by local name (any namespace prefix or URI), one per child of the root:
 * a `Links`, an `Equipment`, a `Location` reading. XML is parsed as a stream, so only the child being read is held.
 */
export interface IsoNode {
  name: string;
  attrs: Readonly<Record<string, string>>;
  text: string;
  children: IsoNode[];
}

/** One root child bigger than this is a broken or hostile feed, not a machine. */
const MAX_NODES_PER_CHILD = 20_000;

const unreadable = (providerId: string, why: string): VendorUnavailableError => new VendorUnavailableError(`${providerId} sent an unreadable ISO 15143-3 document (${why})`, 'failed');

/**
 * Streams the root's children of an XML document, yielding those completed by each chunk. The root's local name must
 * be `root` (a 200 carrying an `<Error>` document is a failure, not an empty fleet).
 */
export async function* xmlRootChildren(providerId: string, chunks: AsyncIterable<Uint8Array>, root: string): AsyncGenerator<IsoNode[]> {
  const parser = new SaxesParser({ xmlns: true, position: false });
  const decoder = new TextDecoder('utf-8');
  const stack: IsoNode[] = [];
  let done: IsoNode[] = [];
  let nodes = 0;
  let sawRoot = false;
  let failure: Error | undefined;

  parser.on('error', (err) => {
    failure ??= unreadable(providerId, err.message);
  });
  parser.on('opentag', (tag) => {
    if (!sawRoot) {
      sawRoot = true;
      if (tag.local !== root) failure ??= unreadable(providerId, `root element ${tag.local}, not ${root}`);
      return;
    }
    const attrs: Record<string, string> = {};
    for (const attr of Object.values(tag.attributes)) {
      if (attr.prefix !== 'xmlns' && attr.name !== 'xmlns') attrs[attr.local] = attr.value;
    }
    const node: IsoNode = { name: tag.local, attrs, text: '', children: [] };
    stack.at(-1)?.children.push(node);
    stack.push(node);
    nodes += 1;
    if (nodes > MAX_NODES_PER_CHILD) failure ??= unreadable(providerId, 'an element too large');
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
  try {
    for await (const chunk of chunks) {
      parser.write(decoder.decode(chunk, { stream: true }));
      const ready = flush();
      if (ready.length > 0) yield ready;
    }
    parser.write(decoder.decode());
    parser.close();
  } catch (err) {
    throw err instanceof VendorUnavailableError ? err : unreadable(providerId, err instanceof Error ? err.message : 'parse error');
  }
  const last = flush();
  if (!sawRoot) throw unreadable(providerId, 'no root element');
  if (last.length > 0) yield last;
}

/** A JSON value as the same tree: object keys become children, arrays repeated children, primitives text. */
function jsonNode(name: string, value: unknown): IsoNode[] {
  if (Array.isArray(value)) return value.flatMap((item) => jsonNode(name, item));
  if (typeof value === 'object' && value !== null) {
    return [{ name, attrs: {}, text: '', children: Object.entries(value).flatMap(([key, v]) => jsonNode(key, v)) }];
  }
  return [{ name, attrs: {}, text: typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '', children: [] }];
}

/** The root's children of a JSON ISO document (the root object itself; feeds drop its name). */
export function jsonRootChildren(providerId: string, doc: unknown, listKeys: readonly string[]): IsoNode[] {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc) || !listKeys.some((key) => listAt(doc, key) !== undefined)) {
    throw unreadable(providerId, 'not a fleet document');
  }
  return Object.entries(doc).flatMap(([key, value]) => jsonNode(key, value));
}

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
