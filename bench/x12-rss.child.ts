import { readFileSync } from 'node:fs';
import { parseX12, readSegments } from '../src/modules/edi/x12/index.js';

/**
 * Child process of benchX12: measures peak RSS of one mode in a fresh process, so nothing else in the bench skews it.
 * argv: mode (idle | read | parse | materialize) and the interchange file; prints one JSON line.
 */
const [mode = 'idle', file = ''] = process.argv.slice(2);

let bodyBytes = 0;
let segments = 0;
let ok = false;
if (mode !== 'idle') {
  const body = readFileSync(file, 'latin1');
  bodyBytes = body.length;
  if (mode === 'parse' || mode === 'materialize') {
    const result = parseX12(body);
    ok = result.ok;
    const groups = result.ok ? result.interchange.groups : (result.envelope?.groups ?? []);
    for (const group of groups) {
      for (const set of group.transactionSets) {
        // materialize: every segment split into elements once, as a consumer walking all sets would.
        segments += mode === 'materialize' ? readSegments(set).length : set.segmentCount;
      }
    }
  }
}
process.stdout.write(`${JSON.stringify({ mode, bodyBytes, segments, ok, maxRssBytes: process.resourceUsage().maxRSS * 1024 })}\n`);
