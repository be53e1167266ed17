#!/usr/bin/env node
// `npm start`'s prestart: builds only when dist/ is missing or older than a source, so a start with dist/ current costs
// a directory walk (milliseconds) instead of a full tsc run (tens of seconds). `npm ci` and `npm run build` build anyway.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

// Touched by `npm run build` when it ends: tsc leaves its own outputs alone when a touched source did not change.
const built = 'dist/.built';
const sources = ['src', 'bench', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

/** The newest modification time under a file or folder. */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((max, name) => Math.max(max, newest(join(path, name))), stat.mtimeMs);
}

const stale = !existsSync(built) || !existsSync('dist/src/main.js') || sources.filter(existsSync).some((s) => newest(s) > statSync(built).mtimeMs);
if (stale) execSync('npm run build', { stdio: 'inherit' });
