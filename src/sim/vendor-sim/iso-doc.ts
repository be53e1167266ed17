/** A tiny element tree rendered either as ISO 15143-3 XML or as the JSON shape AEMP feeds use for the same data. */

type Leaf = string | number | boolean;

export interface El {
  name: string;
  attrs?: Record<string, Leaf>;
  value?: Leaf;
  children?: El[];
}

export const el = (name: string, children: El[], attrs?: Record<string, Leaf>): El => ({ name, children, ...(attrs ? { attrs } : {}) });
export const leaf = (name: string, value: Leaf): El => ({ name, value });

const escape = (text: string): string =>
  text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c] ?? c);

function xmlOf(node: El, indent: string): string {
  const attrs = Object.entries(node.attrs ?? {})
    .map(([k, v]) => ` ${k}="${escape(String(v))}"`)
    .join('');
  if (node.children === undefined) return `${indent}<${node.name}${attrs}>${escape(String(node.value ?? ''))}</${node.name}>`;
  if (node.children.length === 0) return `${indent}<${node.name}${attrs}/>`;
  const inner = node.children.map((c) => xmlOf(c, `${indent}  `)).join('\n');
  return `${indent}<${node.name}${attrs}>\n${inner}\n${indent}</${node.name}>`;
}

export const toXml = (root: El): string => `<?xml version="1.0" encoding="UTF-8"?>\n${xmlOf(root, '')}\n`;

/** Attributes as JSON keys: plain, or marked the way XML-to-JSON converters mark them (`@datetime`). */
const attributeKeys = (attrs: Record<string, Leaf> | undefined, mark: string): Record<string, Leaf> =>
  Object.fromEntries(Object.entries(attrs ?? {}).map(([k, v]) => [`${mark}${k}`, v]));

function objectOf(node: El, mark: string): unknown {
  if (node.children === undefined) return node.value ?? null;
  const out: Record<string, unknown> = attributeKeys(node.attrs, mark);
  for (const child of node.children) out[child.name] = objectOf(child, mark);
  return out;
}

/** Every element name with a namespace prefix (`aemp:Equipment`); attributes stay unprefixed, as in XML. */
export function prefixed(node: El, prefix: string): El {
  return { ...node, name: `${prefix}:${node.name}`, ...(node.children === undefined ? {} : { children: node.children.map((c) => prefixed(c, prefix)) }) };
}

/**
 * JSON feeds drop the root name and namespace; the root's repeated children (`arrays`) are always lists, even empty
 * or single, and attributes become plain keys, so `datetime` looks the same whether XML had it as attribute or element.
 */
export function toJson(root: El, arrays: readonly string[], attributeMark = ''): Record<string, unknown> {
  const out: Record<string, unknown> = attributeKeys(Object.fromEntries(Object.entries(root.attrs ?? {}).filter(([k]) => !k.startsWith('xmlns'))), attributeMark);
  for (const name of arrays) out[name] = [];
  for (const child of root.children ?? []) {
    const list = out[child.name];
    if (arrays.includes(child.name) && Array.isArray(list)) list.push(objectOf(child, attributeMark));
    else out[child.name] = objectOf(child, attributeMark);
  }
  return out;
}
