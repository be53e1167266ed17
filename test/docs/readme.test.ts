import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiTable } from '../../src/platform/operations/api-table.js';
import { type Harness, startHarness } from '../support/harness.js';

const API_DOC = new URL('../../docs/api.md', import.meta.url);
const START = '<!-- api-table:start (generated from the operation list; test/docs/readme.test.ts) -->';
const END = '<!-- api-table:end -->';

describe('docs/api.md', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite');
  });
  afterAll(() => h.close());

  it('shows the API table the operation list generates', () => {
    const text = readFileSync(API_DOC, 'utf8');
    const start = text.indexOf(START);
    const end = text.indexOf(END);
    expect(start, `docs/api.md lacks the marker ${START}`).toBeGreaterThan(-1);
    const shown = text.slice(start + START.length, end).trim();
    const generated = apiTable(h.gateway.operations.map((e) => e.operation));
    // UPDATE_API_TABLE=1 writes the generated table between the markers instead of comparing.
    if (process.env.UPDATE_API_TABLE === '1') {
      writeFileSync(API_DOC, `${text.slice(0, start + START.length)}\n${generated}\n${text.slice(end)}`);
      return;
    }
    expect(shown, `paste this between the markers:\n${generated}`).toBe(generated);
  });
});
