import type { Delimiters } from './x12.types.js';

/** Spare delimiter characters, used only when a value we must write contains a preferred delimiter. */
const SPARE = ['|', '!', '`', '@', '#', '$', '%', '&', ';', '+', '=', '?', '{', '}', ':', '\\'];

/** Keeps the preferred delimiters unless `text` (every value to be written) contains one; then swaps in an unused spare. */
export function chooseDelimiters(preferred: Delimiters, text: string): Delimiters {
  const taken = new Set([preferred.element, preferred.component, preferred.segment, preferred.repetition ?? '']);
  const pick = (want: string): string => {
    if (!text.includes(want)) return want;
    const spare = SPARE.find((c) => !text.includes(c) && !taken.has(c));
    if (spare === undefined) return want; // scrub() then removes it from the values instead
    taken.add(spare);
    return spare;
  };
  const lineBreak = preferred.segment === '\n' || preferred.segment === '\r';
  return {
    element: pick(preferred.element),
    component: pick(preferred.component),
    repetition: preferred.repetition === null ? null : pick(preferred.repetition),
    segment: lineBreak ? preferred.segment : pick(preferred.segment),
  };
}

/** Replaces delimiter characters and line breaks in a value with spaces so the writer always accepts it. */
export function scrub(value: string, d: Delimiters): string {
  let out = value.replace(/[\r\n]/g, ' ');
  for (const ch of [d.element, d.component, d.segment, d.repetition ?? '']) if (ch !== '') out = out.split(ch).join(' ');
  return out;
}
