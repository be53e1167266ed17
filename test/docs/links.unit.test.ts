import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function markdownUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownUnder(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}

const PAGES = [join(ROOT, 'README.md'), join(ROOT, 'CONTRIBUTING.md'), ...markdownUnder(join(ROOT, 'docs'))];

/** GitHub's anchor for a heading: lower case, punctuation dropped but `-` and `_`, spaces to `-`. */
function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a page offers: its headings (repeats numbered as GitHub does) and explicit `<a id>`s. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const prose = text.replace(/^```[\s\S]*?^```/gm, '');
  for (const [, heading] of prose.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = slugOf(heading ?? '');
    const n = seen.get(slug) ?? 0;
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
    seen.set(slug, n + 1);
  }
  for (const [, id] of prose.matchAll(/<a id="([^"]+)"/g)) anchors.add(id ?? '');
  return anchors;
}

/** `[text](target)` links outside code, with where they point. */
function linksOf(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '');
}

describe('links in README.md and docs/', () => {
  it.each(PAGES.map((p) => [relative(ROOT, p), p]))('%s links only to files of the repository and to headings they have', (_name, page) => {
    const text = readFileSync(page, 'utf8');
    const broken: string[] = [];
    for (const link of linksOf(text)) {
      if (/^[a-z]+:/i.test(link)) continue;
      const [path = '', anchor] = link.split('#');
      const target = path === '' ? page : resolve(dirname(page), decodeURIComponent(path));
      if (relative(ROOT, target).startsWith('..')) broken.push(`${link} (outside the repository)`);
      else if (!existsSync(target)) broken.push(`${link} (no such file)`);
      else if (anchor && statSync(target).isFile() && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) {
        broken.push(`${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the README states what package.json requires, and the toolchain better-sqlite3 may need', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const { engines } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(engines.node).toMatch(/^>=\d+\.\d+$/);
    expect(readme).toContain(`Node ${engines.node.slice(2)} or newer`);
    for (const tool of ['`python3`', '`make`', '`g++`']) expect(readme).toContain(tool);
  });

  it('the README opens with the quickstart, before any reference', () => {
    const headings = [...readFileSync(join(ROOT, 'README.md'), 'utf8').matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings[0]).toBe('Quickstart');
  });
});
