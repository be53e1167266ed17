import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Harness, startHarness } from '../support/harness.js';
import { listTools } from '../support/operations.js';

type OpenApi = { paths: Record<string, Record<string, { operationId: string; description: string }>> };

/** What an agent reads to pick a tool must say what the tool gives: the same text in tools/list and in /openapi.json. */
describe.each(dialects)('descriptions that lead an agent to what it needs (%s)', (dialect) => {
  let h: Harness;
  let descriptions: Map<string, string>;
  let documented: Map<string, string>;

  beforeAll(async () => {
    h = await startHarness(dialect);
    const tools = await listTools(h, (await h.key('acme', 'all')).key);
    descriptions = new Map(tools.map((t) => [t.name, (t as { description?: string }).description ?? '']));
    const doc = (await h.request({ method: 'GET', url: '/openapi.json' })).json<OpenApi>();
    documented = new Map(Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op): [string, string] => [op.operationId, op.description])));
  });
  afterAll(() => h.close());

  it.each([
    ['telematics_connections_get', [/with its health/, /circuit breaker/, /last poll/, /last error/, /issues/]],
    ['edi_submit', [/edi_partners_list/]],
    ['edi_partners_list', [/ISA05\/ISA06/, /ISA07\/ISA08/, /no secret/]],
    ['edi_messages_get', [/include=raw/, /raw_offset/, /512 KB/]],
  ])('%s says it', (name, phrases) => {
    const tool = descriptions.get(name) ?? '';
    for (const phrase of phrases) expect(tool).toMatch(phrase);
    expect(documented.get(name)).toContain(tool.split('\n')[0]?.slice(0, 60));
  });
});
