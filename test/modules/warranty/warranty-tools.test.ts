import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { clientKinds, listen, type McpTestClient } from '../../mcp/support/mcp-clients.js';

const kind = clientKinds[0];

interface ClaimOut {
  claim: { id: string; claim_number: string; status: string; resolution: string | null; history: { from: string | null; to: string }[] };
}

describe.each(dialects)('warranty claims over MCP (%s)', (dialect) => {
  let h: Harness;
  let url: string;
  const opened: McpTestClient[] = [];
  beforeAll(async () => {
    h = await startHarness(dialect);
    url = await listen(h);
  });
  afterAll(async () => {
    await Promise.all(opened.map((c) => c.close()));
    await h.close();
  });

  const connect = async (org: string, scopes: string) => {
    if (!kind) throw new Error('no MCP client kind');
    const client = await kind.connect(url, (await h.key(org, scopes)).key);
    opened.push(client);
    return client;
  };
  const textOf = (r: { content: { text?: string }[] }) => r.content[0]?.text ?? '';

  it('lists the read tools to a reader and all four to a writer', async () => {
    const names = async (scopes: string) => (await (await connect('acme', scopes)).listTools()).map((t) => t.name).filter((n) => n.startsWith('warranty_')).sort();
    expect(await names('warranty:read')).toEqual(['warranty_claims_get', 'warranty_claims_list']);
    expect(await names('warranty:read,warranty:write')).toEqual(['warranty_claims_create', 'warranty_claims_get', 'warranty_claims_list', 'warranty_claims_update']);
  });

  it('files, reads, moves and lists a claim, the same claim REST shows', async () => {
    const client = await connect('mcp-org', 'warranty:read,warranty:write');
    const created = await client.call('warranty_claims_create', { description: 'Puncture near shoulder', dot_number: 'DOT U2LL LMLR 5107', quantity: 1 });
    expect(created.isError, textOf(created)).toBeFalsy();
    const claim = (created.structuredContent as unknown as ClaimOut).claim;
    expect(claim).toMatchObject({ claim_number: 'WC-000001', status: 'submitted' });

    const got = await client.call('warranty_claims_get', { id_or_number: 'wc-000001' });
    expect((got.structuredContent as unknown as ClaimOut).claim.id).toBe(claim.id);

    const moved = await client.call('warranty_claims_update', { id_or_number: claim.id, changes: { status: 'denied', resolution: 'Road hazard' } });
    expect((moved.structuredContent as unknown as ClaimOut).claim).toMatchObject({ status: 'denied', resolution: 'Road hazard' });

    const listed = await client.call('warranty_claims_list', { status: 'denied' });
    expect((listed.structuredContent as { claims: { id: string }[] }).claims.map((c) => c.id)).toEqual([claim.id]);

    const rest = await h.request({ method: 'GET', url: `/v1/warranty-claims/${claim.id}`, key: (await h.key('mcp-org', 'warranty:read')).key });
    expect(rest.json<ClaimOut>().claim).toEqual((moved.structuredContent as unknown as ClaimOut).claim);
  });

  it('answers a forbidden move, a bad DOT code and a missing scope with isError and the REST message', async () => {
    const client = await connect('mcp-errors', 'warranty:read,warranty:write');
    const claim = ((await client.call('warranty_claims_create', { description: 'x' })).structuredContent as unknown as ClaimOut).claim;
    await client.call('warranty_claims_update', { id_or_number: claim.id, changes: { status: 'approved' } });
    expect(textOf(await client.call('warranty_claims_update', { id_or_number: claim.id, changes: { status: 'denied' } }))).toBe(
      `claim ${claim.claim_number} cannot move from approved to denied (allowed: closed)`,
    );
    expect(textOf(await client.call('warranty_claims_create', { description: 'x', dot_number: 'DOT OO 1234' }))).toMatch(/letter O/);
    const reader = await connect('mcp-errors', 'warranty:read');
    expect(textOf(await reader.call('warranty_claims_create', { description: 'x' }))).toBe('missing scope: warranty:write');
  });
});
