import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * platform/ in layers, bottom first: a folder imports only from its own folder and from folders of a lower layer
 * (folders in one layer import neither way). Files at platform/'s root (module-definition.ts) sit above every layer.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['core'],
  ['db'],
  ['secrets', 'ratelimit', 'audit', 'instances'],
  ['orgs'],
  ['auth', 'outbox'],
  ['http'],
  ['operations'],
];

const SRC = 'src';
const PLATFORM = join(SRC, 'platform');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every relative import and re-export of a file (types too), as source paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*'(\.[^']+)'|(?:^|\n)\s*import\s*'(\.[^']+)'/g)].map((m) =>
    normalize(join(dirname(file), (m[1] ?? m[2] ?? '').replace(/\.js$/, '.ts'))),
  );
}

/** The layer of a file under platform/ (its folder's), or Infinity for a file at platform/'s root. */
function layerOf(file: string): number {
  const folder = relative(PLATFORM, file).split('/')[0] ?? '';
  if (!relative(PLATFORM, file).includes('/')) return Infinity;
  const index = LAYERS.findIndex((layer) => layer.includes(folder));
  if (index < 0) throw new Error(`platform/${folder} is in no layer: add it to LAYERS`);
  return index;
}

// What platform/ may import from outside itself: the configuration and its errors.
const CONFIG_FILES = [join(SRC, 'config.ts'), join(SRC, 'config-errors.ts')];

const folderOf = (file: string) => relative(PLATFORM, file).split('/')[0];
const inPlatform = (file: string) => !relative(PLATFORM, file).startsWith('..');

describe('platform layers', () => {
  const files = sourceFiles(PLATFORM);
  const graph = new Map(files.map((file) => [file, importsOf(file)]));

  it('imports only downward: its own folder or a lower layer, never a module, the MCP door or the app', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        const bad = inPlatform(target)
          ? folderOf(target) !== folderOf(file) && layerOf(target) >= layerOf(file)
          : !CONFIG_FILES.includes(normalize(target));
        if (bad) upward.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no import circle', () => {
    const state = new Map<string, 'open' | 'done'>();
    const circles: string[] = [];
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const target of graph.get(file) ?? []) if (graph.has(target)) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(circles).toEqual([]);
  });

  it('config.ts imports nothing from platform/ (nor anything of ours but its errors, which import nothing)', () => {
    expect(importsOf(join(SRC, 'config.ts')).filter((f) => f !== join(SRC, 'config-errors.ts'))).toEqual([]);
    expect(importsOf(join(SRC, 'config-errors.ts'))).toEqual([]);
  });

  it('every folder of platform/ has a layer', () => {
    const folders = new Set(files.filter((f) => relative(PLATFORM, f).includes('/')).map(folderOf));
    expect([...folders].filter((f) => !LAYERS.flat().includes(f ?? ''))).toEqual([]);
  });
});
