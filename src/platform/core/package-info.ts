import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface PackageInfo {
  name: string;
  version: string;
}

/** The nearest package.json above this file: the repository's, from src/ (tests) and from dist/src/ (built) alike. */
function readPackageInfo(): PackageInfo {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const { name, version } = JSON.parse(readFileSync(file, 'utf8')) as Partial<PackageInfo>;
      return { name: name ?? 'tire-gateway', version: version ?? '0.0.0' };
    }
    if (dirname(dir) === dir) return { name: 'tire-gateway', version: '0.0.0' };
  }
}

/** The gateway's own name and release (package.json), shown on /docs, in the OpenAPI info and in MCP serverInfo. */
export const PACKAGE = readPackageInfo();
