import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { clientKinds, listen, type McpTestClient, type ToolResult } from '../../mcp/support/mcp-clients.js';

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
  const claimOf = (r: ToolResult) => (r.structuredContent as unknown as ClaimOut).claim;
  const countClaims = async (client: McpTestClient) =>
    ((await client.call('warranty_claims_list', { limit: 200 })).structuredContent as { claims: unknown[] }).claims.length;

  it('lists the read tools to a reader and all four to a writer', async () => {
    const names = async (scopes: string) => (await (await connect('acme', scopes)).listTools()).map((t) => t.name).filter((n) => n.startsWith('warranty_')).sort();
    expect(await names('warranty:read')).toEqual(['warranty_claims_get', 'warranty_claims_list']);
    expect(await names('warranty:read,warranty:write')).toEqual(['warranty_claims_create', 'warranty_claims_get', 'warranty_claims_list', 'warranty_claims_update']);
  });

  it('lists flat arguments, honest hints and the promise of the allowed next states', async () => {
    const tools = (await (await connect('acme', 'warranty:read,warranty:write')).listTools()).filter((t) => t.name.startsWith('warranty_'));
    const byName = new Map(tools.map((t) => [t.name, t]));
    const argsOf = (name: string) => Object.keys(byName.get(name)?.inputSchema.properties ?? {}).sort();
    expect(argsOf('warranty_claims_update')).toEqual(['id_or_number', 'idempotency_key', 'resolution', 'status']);
    expect(byName.get('warranty_claims_update')?.inputSchema.required).toEqual(['id_or_number']);
    expect(argsOf('warranty_claims_get')).toEqual(['id_or_number']);
    expect(argsOf('warranty_claims_list')).toEqual(['created_since', 'cursor', 'limit', 'status', 'updated_since']);
    expect(argsOf('warranty_claims_create')).toEqual(['customer_ref', 'description', 'dot_number', 'idempotency_key', 'quantity', 'sku']);
    expect(byName.get('warranty_claims_update')?.description).toContain('allowed next states');

    const hints = (name: string) => byName.get(name)?.annotations;
    const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    expect(hints('warranty_claims_list')).toMatchObject(read);
    expect(hints('warranty_claims_get')).toMatchObject(read);
    expect(hints('warranty_claims_create')).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
    expect(hints('warranty_claims_update')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
  });

  it('files, reads, moves and lists a claim, the same claim REST shows', async () => {
    const client = await connect('mcp-org', 'warranty:read,warranty:write');
    const created = await client.call('warranty_claims_create', { description: 'Puncture near shoulder', dot_number: 'DOT U2LL LMLR 5107', quantity: 1 });
    expect(created.isError, textOf(created)).toBeFalsy();
    const claim = claimOf(created);
    expect(claim).toMatchObject({ claim_number: 'WC-000001', status: 'submitted' });

    const got = await client.call('warranty_claims_get', { id_or_number: 'wc-000001' });
    expect(claimOf(got).id).toBe(claim.id);

    const moved = await client.call('warranty_claims_update', { id_or_number: claim.id, status: 'denied', resolution: 'Road hazard' });
    expect(moved.isError, textOf(moved)).toBeFalsy();
    expect(claimOf(moved)).toMatchObject({ status: 'denied', resolution: 'Road hazard' });

    const resolved = await client.call('warranty_claims_update', { id_or_number: claim.claim_number, resolution: 'Road hazard, photos on file' });
    expect(claimOf(resolved)).toMatchObject({ status: 'denied', resolution: 'Road hazard, photos on file' });
    expect(claimOf(resolved).history).toHaveLength(2);

    const listed = await client.call('warranty_claims_list', { status: 'denied' });
    expect((listed.structuredContent as { claims: { id: string }[] }).claims.map((c) => c.id)).toEqual([claim.id]);

    const rest = await h.request({ method: 'GET', url: `/v1/warranty-claims/${claim.id}`, key: (await h.key('mcp-org', 'warranty:read')).key });
    expect(rest.json<ClaimOut>().claim).toEqual(claimOf(resolved));
  });

  it('answers a forbidden move, a bad DOT code and a missing scope with isError, the code and the REST message', async () => {
    const client = await connect('mcp-errors', 'warranty:read,warranty:write');
    const claim = claimOf(await client.call('warranty_claims_create', { description: 'x' }));
    await client.call('warranty_claims_update', { id_or_number: claim.id, status: 'approved' });
    const forbidden = await client.call('warranty_claims_update', { id_or_number: claim.id, status: 'denied' });
    expect(forbidden.isError).toBe(true);
    const message = `claim ${claim.claim_number} cannot move from approved to denied (allowed: closed)`;
    expect(textOf(forbidden)).toBe(`invalid_transition: ${message}`);
    expect(forbidden.structuredContent).toEqual({
      code: 'invalid_transition',
      status: 409,
      message,
      details: { status: 'approved', requested: 'denied', allowed: ['closed'] },
      param: 'status',
      doc_url: 'docs/errors.md#invalid_transition',
    });
    const rest = await h.request({
      method: 'PATCH',
      url: `/v1/warranty-claims/${claim.id}`,
      key: (await h.key('mcp-errors', 'warranty:write')).key,
      payload: { status: 'denied' },
    });
    expect(rest.statusCode).toBe(409);
    expect(rest.json<{ error: string; details: unknown }>()).toMatchObject({ error: message, details: forbidden.structuredContent?.details });

    const dot = await client.call('warranty_claims_create', { description: 'x', dot_number: 'DOT OO 1234' });
    expect(dot.isError).toBe(true);
    expect(textOf(dot)).toMatch(/^invalid_input: .*letter O/);
    expect(dot.structuredContent).toMatchObject({ code: 'invalid_input', status: 400, details: [{ path: 'dot_number' }] });

    const reader = await connect('mcp-errors', 'warranty:read');
    const denied = await reader.call('warranty_claims_create', { description: 'x' });
    expect(textOf(denied)).toBe('missing_scope: missing scope: warranty:write');
    expect(denied.structuredContent).toMatchObject({ code: 'missing_scope', status: 403, message: 'missing scope: warranty:write' });
    expect(await countClaims(client)).toBe(1);
  });

  it('refuses unknown arguments (the old `changes` nesting among them) as invalid_input with the same details as REST', async () => {
    const org = 'mcp-args';
    const client = await connect(org, 'warranty:read,warranty:write');
    const restKey = (await h.key(org, 'warranty:read,warranty:write')).key;
    const claim = claimOf(await client.call('warranty_claims_create', { description: 'args' }));

    const nested = await client.call('warranty_claims_update', { id_or_number: claim.id, changes: { status: 'approved' } });
    expect(nested.isError).toBe(true);
    const nestedRest = await h.request({ method: 'PATCH', url: `/v1/warranty-claims/${claim.id}`, key: restKey, payload: { changes: { status: 'approved' } } });
    expect(nestedRest.statusCode).toBe(400);
    expect(nested.structuredContent).toMatchObject({ code: 'invalid_input', status: 400, details: nestedRest.json<{ details: unknown }>().details });
    expect(JSON.stringify(nested.structuredContent?.details)).toContain('changes');

    const createStray = await client.call('warranty_claims_create', { description: 'x', priority: 'high' });
    const createStrayRest = await h.request({ method: 'POST', url: '/v1/warranty-claims', key: restKey, payload: { description: 'x', priority: 'high' } });
    expect(createStrayRest.statusCode).toBe(400);
    expect(createStray.structuredContent).toMatchObject({ code: 'invalid_input', details: createStrayRest.json<{ details: unknown }>().details });

    const getStray = await client.call('warranty_claims_get', { id_or_number: claim.id, expand: 'history' });
    const getStrayRest = await h.request({ method: 'GET', url: `/v1/warranty-claims/${claim.id}?expand=history`, key: restKey });
    expect(getStrayRest.statusCode).toBe(400);
    expect(getStray.structuredContent).toMatchObject({ code: 'invalid_input', status: 400, details: getStrayRest.json<{ details: unknown }>().details });

    // Read-only tools take no idempotency key: there it is an unknown argument like any other.
    const keyedRead = await client.call('warranty_claims_get', { id_or_number: claim.id, idempotency_key: 'k-1' });
    expect(keyedRead.structuredContent).toMatchObject({ code: 'invalid_input', status: 400 });

    const bidi = await client.call('warranty_claims_get', { id_or_number: `${claim.claim_number}\u202e` });
    expect(bidi.structuredContent).toMatchObject({ code: 'invalid_input', details: [{ path: 'id_or_number', message: expect.stringContaining('U+202E') as string }] });
    const emptyChange = await client.call('warranty_claims_update', { id_or_number: claim.id });
    expect(textOf(emptyChange)).toMatch(/^invalid_input: .*send at least one of status, resolution/);

    expect(claimOf(await client.call('warranty_claims_get', { id_or_number: claim.id })).status).toBe('submitted');
    expect(await countClaims(client)).toBe(1);
  });

  it('replays a create retried with the same idempotency_key: the same claim, no second claim, numbers gap-free', async () => {
    const org = 'mcp-idem';
    const client = await connect(org, 'warranty:read,warranty:write');
    const args = { description: 'Retried by the agent', quantity: 2, idempotency_key: 'agent-claim-1' };
    const first = await client.call('warranty_claims_create', args);
    expect(first.isError, textOf(first)).toBeFalsy();
    const again = await client.call('warranty_claims_create', args);
    expect(again.isError, textOf(again)).toBeFalsy();
    expect(claimOf(again)).toEqual(claimOf(first));
    expect(claimOf(first).claim_number).toBe('WC-000001');
    expect(await countClaims(client)).toBe(1);

    // The key is shared with REST's Idempotency-Key: the same call through the other door replays too.
    const rest = await h.request({
      method: 'POST',
      url: '/v1/warranty-claims',
      key: (await h.key(org, 'warranty:write')).key,
      payload: { description: 'Retried by the agent', quantity: 2 },
      headers: { 'idempotency-key': 'agent-claim-1' },
    });
    expect(rest.statusCode, rest.body).toBe(201);
    expect(rest.headers['idempotent-replayed']).toBe('true');
    expect(rest.json<ClaimOut>().claim).toEqual(claimOf(first));

    const reused = await client.call('warranty_claims_create', { description: 'Something else', idempotency_key: 'agent-claim-1' });
    expect(reused.structuredContent).toMatchObject({ code: 'idempotency_key_reused', status: 422 });
    expect(await countClaims(client)).toBe(1);
    expect(claimOf(await client.call('warranty_claims_create', { description: 'next' })).claim_number).toBe('WC-000002');
  });

  it('replays a move retried with the same idempotency_key instead of refusing the second move', async () => {
    const client = await connect('mcp-idem-move', 'warranty:read,warranty:write');
    const claim = claimOf(await client.call('warranty_claims_create', { description: 'move me' }));
    const args = { id_or_number: claim.id, status: 'closed', resolution: 'Credited', idempotency_key: 'agent-close-1' };
    const first = await client.call('warranty_claims_update', args);
    expect(first.isError, textOf(first)).toBeFalsy();
    const again = await client.call('warranty_claims_update', args);
    expect(again.isError, textOf(again)).toBeFalsy();
    expect(claimOf(again)).toEqual(claimOf(first));
    expect(claimOf(again).history.map((e) => e.to)).toEqual(['submitted', 'closed']);
    const unkeyed = await client.call('warranty_claims_update', { id_or_number: claim.id, status: 'closed' });
    expect(unkeyed.structuredContent).toMatchObject({ code: 'invalid_transition', details: { status: 'closed', requested: 'closed', allowed: [] } });
  });
});
