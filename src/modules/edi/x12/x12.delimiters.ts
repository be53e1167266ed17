import type { Delimiters } from './x12.types.js';

/** Spare delimiter characters, used only when a value we must write contains a preferred delimiter. */
const SPARE = ['|', '!', '`', '@', '#', '$', '%', '&', ';', '+', '=', '?', '{', '}', ':', '\\'];

/**
 * The characters of the values an interchange will echo, gathered one value at a time: a 997 for 40,000 groups echoes
 * hundreds of thousands of values, and joining them to search the text would be one long step.
 */
export class EchoedChars {
  private readonly ascii = new Uint8Array(128);
  private readonly other = new Set<number>();

  static of(...values: readonly string[]): EchoedChars {
    const chars = new EchoedChars();
    for (const v of values) chars.add(v);
    return chars;
  }

  add(value: string): void {
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      if (code < 128) this.ascii[code] = 1;
      else this.other.add(code);
    }
  }

  /** Whether any value holds `ch` (one character: a delimiter). */
  has(ch: string): boolean {
    const code = ch.charCodeAt(0);
    return code < 128 ? this.ascii[code] === 1 : this.other.has(code);
  }
}

/** Keeps the preferred delimiters unless a value to be written (`echoed`) contains one; then swaps in an unused spare. */
export function chooseDelimiters(preferred: Delimiters, echoed: EchoedChars): Delimiters {
  const taken = new Set([preferred.element, preferred.component, preferred.segment, preferred.repetition ?? '']);
  const pick = (want: string): string => {
    if (!echoed.has(want)) return want;
    const spare = SPARE.find((c) => !echoed.has(c) && !taken.has(c));
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
export function scrub(value: string, delimiters: Delimiters): string {
  let out = value.replace(/[\r\n]/g, ' ');
  for (const ch of [delimiters.element, delimiters.component, delimiters.segment, delimiters.repetition ?? '']) if (ch !== '' && out.includes(ch)) out = out.split(ch).join(' ');
  return out;
}

/** What an echo of received data keeps: printable ASCII into X12, upper-case letters and digits into an X12 id, anything but controls into JSON. */
type Charset = 'x12' | 'id' | 'text';

function allowed(code: number, charset: Charset): boolean {
  if (charset === 'id') return (code >= 48 && code <= 57) || (code >= 65 && code <= 90);
  if (code < 32 || code === 127) return false;
  return charset === 'text' ? code < 0x80 || code > 0x9f : code < 127;
}

/** Replaces characters outside the charset with '?' and cuts at `max` without reading past it; X12 echoes are trimmed too. */
function clip(value: string, max: number, charset: Charset): { text: string; cut: boolean } {
  const trim = charset !== 'text';
  let a = 0;
  while (trim && a < value.length && value.charCodeAt(a) === 32) a++;
  let b = value.length;
  while (trim && b > a && value.charCodeAt(b - 1) === 32) b--;
  // An id drops characters rather than replacing them, so it may read further; never more than a bounded window.
  const stop = Math.min(b, a + (charset === 'id' ? 8 * max : max));
  let text = '';
  let i = a;
  for (; i < stop && text.length < max; i++) {
    const code = value.charCodeAt(i);
    if (allowed(code, charset)) text += value.charAt(i);
    else if (charset !== 'id') text += '?';
  }
  const cut = i < b;
  return { text: cut && trim ? text.trimEnd() : text, cut };
}

/**
 * Received data echoed into an X12 document we write (997 GS02/GS03, AK1-AK4 values): at most `max` characters of
 * printable ASCII, no leading or trailing spaces. The one sanitizer every echo into X12 goes through.
 */
export function echoX12(value: string, max: number): string {
  return clip(value, max, 'x12').text;
}

/**
 * A segment id echoed into an X12 id element (AK301): its letters and digits only, at least two characters (an id
 * with fewer usable ones is padded with 'X') so the 997 stays valid.
 */
export function echoX12Id(value: string, max: number): string {
  return clip(value, max, 'id').text.padEnd(2, 'X');
}

/** Echoed values in JSON answers and error messages are cut here, with this marker after the cut. */
export const JSON_ECHO_MAX = 80;
const ECHO_MARKER = '…';

/** Received data echoed into JSON (error values, control numbers): no control characters, `max` characters then '…'. */
export function echoText(value: string, max = JSON_ECHO_MAX): string {
  const { text, cut } = clip(value, max, 'text');
  return cut ? `${text}${ECHO_MARKER}` : text;
}
