/** Reading loosely typed vendor JSON without trusting its shape. */

export function at(value: unknown, ...keys: string[]): unknown {
  let node = value;
  for (const key of keys) node = typeof node === 'object' && node !== null && !Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
  return node;
}

/** A non-empty string, or a number as its decimal text (vendors send ids either way). */
export function textAt(value: unknown, ...keys: string[]): string | undefined {
  const v = at(value, ...keys);
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

export function listAt(value: unknown, ...keys: string[]): unknown[] | undefined {
  const v = at(value, ...keys);
  return Array.isArray(v) ? v : undefined;
}
