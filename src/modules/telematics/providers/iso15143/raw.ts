import type { Raw } from '../event.js';
import type { IsoNode } from './iso-xml.js';

/** What an event's `raw` may hold of the vendor's names and values: enough to see what was sent, never a whole page. */
export const RAW_MAX_CHARS = 4096;

/** Collects unmapped elements as `path -> text` (`Name.Child`, `Name@attribute`) up to RAW_MAX_CHARS, then marks itself truncated. */
export class RawFields {
  private readonly fields: Record<string, string> = {};
  private size = 0;
  private truncated = false;

  get empty(): boolean {
    return this.size === 0 && !this.truncated;
  }

  add(node: IsoNode, path = node.name): void {
    for (const [name, text] of Object.entries(node.attrs)) this.put(`${path}@${name}`, text);
    if (node.children.length === 0) this.put(path, node.text);
    for (const c of node.children) this.add(c, `${path}.${c.name}`);
  }

  value(): Raw | undefined {
    return this.empty ? undefined : { fields: { ...this.fields }, truncated: this.truncated };
  }

  private put(path: string, text: string): void {
    let key = path;
    // Repeated elements (two FaultCode) keep every value.
    for (let n = 2; key in this.fields; n += 1) key = `${path}#${n}`;
    if (this.size + key.length + text.length > RAW_MAX_CHARS) {
      this.truncated = true;
      return;
    }
    this.fields[key] = text;
    this.size += key.length + text.length;
  }
}
