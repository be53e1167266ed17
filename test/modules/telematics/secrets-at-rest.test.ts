import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { secretsStatus } from '../../../src/platform/secrets/status.js';
import { startVendorSim, type VendorSim } from '../../../src/sim/vendor-sim.js';
import { useInProcessCli } from '../../support/cli.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';

/**
 * Vendor credentials and OAuth tokens exist in plaintext only in memory: never in a response (connect, list, get,
 * the CLI), never in a log line (even at trace), never in the database (file bytes on SQLite, rows on PostgreSQL);
 * responses show masked hints. `secrets rotate` moves every ciphertext to the new data key without changing anything
 * a caller sees, and every secret still decrypts.
 */

const rand = () => randomBytes(8).toString('hex');

interface Connection {
  id: string;
  provider: string;
  status: string;
  credentials_hint: string | null;
}

interface CredentialCase {
  provider: string;
  credentials: Record<string, string>;
  hint: string;
  /** The values that must never leave in plaintext. */
  secrets: string[];
}

describe.each(dialects)('telematics secrets at rest (%s)', (dialect) => {
  const cli = useInProcessCli(`secrets-at-rest-${dialect}`);
  let sim: VendorSim;
  let h: Harness;
  let app: FastifyInstance;
  let org: { id: string; slug: string };
  let readKey: string;
  const logs: string[] = [];
  const bodies: string[] = [];

  const id1 = rand();
  const cases: CredentialCase[] = [
    {
      provider: 'vendor1_livelink',
      credentials: { username: `fleet.manager.${id1}@acme.example`, password: `pw-${rand()}` },
      hint: 'fl***@acme.example',
      secrets: [],
    },
    { provider: 'vendor2_machineiq', credentials: { username: `ops-${rand()}`, password: `pw-${rand()}` }, hint: 'op***', secrets: [] },
    { provider: 'vendor13', credentials: { api_key: `key-${rand()}` }, hint: '', secrets: [] },
    { provider: 'vendor18_tyresense', credentials: { username: `tyres.${rand()}@acme.example`, password: `pw-${rand()}` }, hint: 'ty***@acme.example', secrets: [] },
  ];
  for (const c of cases) {
    c.secrets = Object.values(c.credentials);
    if (c.credentials.api_key !== undefined) c.hint = `••••${c.credentials.api_key.slice(-4)}`;
  }
  const ids = new Map<string, string>();
  let consentCode = '';
  let consentState = '';
  let oauthId = '';
  let oauthTokens: { access_token: string; refresh_token?: string; expires_at?: string } = { access_token: '' };
  const allSecrets = (): string[] => [...cases.flatMap((c) => c.secrets), oauthTokens.access_token, oauthTokens.refresh_token ?? ''].filter((s) => s !== '');

  const inject = async (opts: InjectOptions) => {
    const res = await app.inject(opts);
    bodies.push(res.body, JSON.stringify(res.headers));
    return res;
  };
  const authed = { authorization: '' };

  async function listConnections(): Promise<Connection[]> {
    const res = await inject({ method: 'GET', url: '/v1/telematics/connections?limit=200', headers: authed });
    expect(res.statusCode, res.body).toBe(200);
    return (JSON.parse(res.body) as { connections: Connection[] }).connections;
  }

  async function getConnection(id: string): Promise<Connection> {
    const res = await inject({ method: 'GET', url: `/v1/telematics/connections/${id}`, headers: authed });
    expect(res.statusCode, res.body).toBe(200);
    return (JSON.parse(res.body) as { connection: Connection }).connection;
  }

  const rows = () => h.gateway.database.db.selectFrom('telematics_connections').selectAll().orderBy('id').execute();

  beforeAll(async () => {
    sim = await startVendorSim();
    h = await startHarness(dialect, { env: { VENDOR_SIM_URL: sim.url, LOG_LEVEL: 'trace' } });
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        logs.push(chunk.toString());
        cb();
      },
    });
    app = await buildApp(h.gateway, { logger: { level: 'trace', stream } });
    await app.ready();
    org = await h.org('acme');
    readKey = (await h.key('acme', 'telematics:read')).key;
    authed.authorization = `Bearer ${readKey}`;

    for (const c of cases) {
      const { connect_token } = await h.gateway.services.connectTokens.issue({ org: 'acme' });
      const res = await inject({ method: 'POST', url: '/connect', payload: { connect_token, provider: c.provider, credentials: c.credentials, label: `${c.provider} yard` } });
      expect(res.statusCode, res.body).toBe(200);
      ids.set(c.provider, (JSON.parse(res.body) as { connection_id: string }).connection_id);
    }

    const { connect_token } = await h.gateway.services.connectTokens.issue({ org: 'acme' });
    const started = await inject({ method: 'POST', url: '/connect', payload: { connect_token, provider: 'vendor11_operations_center' } });
    expect(started.statusCode, started.body).toBe(200);
    const body = JSON.parse(started.body) as { connection_id: string; next_step: { authorize_url: string } };
    oauthId = body.connection_id;
    const consent = await fetch(body.next_step.authorize_url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') ?? '');
    consentCode = back.searchParams.get('code') ?? '';
    consentState = back.searchParams.get('state') ?? '';
    const page = await inject({ method: 'GET', url: back.pathname + back.search });
    expect(page.statusCode, page.body).toBe(200);

    const row = (await rows()).find((r) => r.id === oauthId);
    oauthTokens = JSON.parse(await h.gateway.vault.decrypt(row?.oauth_tokens_ciphertext ?? '', oauthId)) as typeof oauthTokens;
    expect(oauthTokens.access_token).toMatch(/^at_/);
    expect(oauthTokens.refresh_token).toMatch(/^rt_/);
    // The gateway itself uses the access token (no refresh needed yet).
    expect(await h.gateway.services.oauthConsent.accessToken(org.id, oauthId)).toBe(oauthTokens.access_token);
  });

  afterAll(async () => {
    await app?.close();
    await h?.close();
    await sim?.close();
  });

  it('hints are masked and every connection reads active', async () => {
    const listed = await listConnections();
    for (const c of cases) {
      const id = ids.get(c.provider) ?? '';
      const expected = { id, provider: c.provider, status: 'active', credentials_hint: c.hint };
      expect(listed.find((l) => l.id === id)).toMatchObject(expected);
      expect(await getConnection(id)).toMatchObject(expected);
    }
    expect(await getConnection(oauthId)).toMatchObject({ status: 'active', credentials_hint: null });
    expect(cases.find((c) => c.provider === 'vendor13')?.hint).toMatch(/^••••[0-9a-f]{4}$/);
  });

  it('a refused credentials shape does not echo the values back', async () => {
    const { connect_token } = await h.gateway.services.connectTokens.issue({ org: 'acme' });
    const password = `pw-${rand()}`;
    const res = await inject({ method: 'POST', url: '/connect', payload: { connect_token, provider: 'vendor13', credentials: { username: 'someone', password } } });
    expect(res.statusCode).toBe(400);
    expect(res.body).not.toContain(password);
    expect(logs.join('')).not.toContain(password);
  });

  it('no response body or header carries a password, API key or token', async () => {
    await listConnections();
    for (const id of [...ids.values(), oauthId]) await getConnection(id);
    const everything = bodies.join('\n');
    expect(bodies.length).toBeGreaterThan(10);
    for (const secret of allSecrets()) expect(everything, secret).not.toContain(secret);
    // Not even the full usernames: only their hints.
    for (const c of cases) if (c.credentials.username !== undefined) expect(everything).not.toContain(c.credentials.username);
  });

  it('the CLI `connections list --json` shows hints only', async () => {
    if (dialect !== 'sqlite') return; // the in-process CLI reaches SQLite by URL; a PostgreSQL schema has no CLI setting
    const saved = { DATABASE_URL: process.env.DATABASE_URL, GATEWAY_SECRET: process.env.GATEWAY_SECRET };
    process.env.DATABASE_URL = h.databaseUrl;
    process.env.GATEWAY_SECRET = h.config.GATEWAY_SECRET;
    try {
      const res = await cli('connections', 'list', '--org', 'acme', '--json');
      expect(res.code, res.stderr).toBe(0);
      const out = JSON.parse(res.stdout) as { connections: Connection[] };
      expect(out.connections.map((c) => c.id).sort()).toEqual([...ids.values(), oauthId].sort());
      for (const c of cases) expect(out.connections.find((l) => l.provider === c.provider)?.credentials_hint).toBe(c.hint);
      for (const secret of allSecrets()) expect(res.stdout + res.stderr).not.toContain(secret);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) Reflect.deleteProperty(process.env, k);
        else process.env[k] = v;
      }
    }
  });

  it('nothing secret is logged, even at trace', () => {
    const logged = logs.join('');
    expect(logs.length).toBeGreaterThan(5);
    expect(logged).toContain('"level":20'); // the logger was below info (nothing in this path logs at trace itself)
    expect(logged).toContain('/connect/oauth/callback');
    // The redirect's code and state are spent, but each opened the account until then: the access log keeps neither.
    expect(consentCode.length).toBeGreaterThan(10);
    expect(logged).not.toContain(consentCode);
    expect(logged).not.toContain(consentState);
    for (const secret of allSecrets()) expect(logged, secret).not.toContain(secret);
    expect(logged).not.toContain(readKey.slice('trk_live_'.length));
  });

  it('the database holds only ciphertexts and hints', async () => {
    const all = await rows();
    expect(all).toHaveLength(cases.length + 1);
    for (const r of all) {
      if (r.id === oauthId) {
        expect(r.credentials_ciphertext).toBeNull();
        expect(r.oauth_tokens_ciphertext).toMatch(/^v1:[^:]+:[^:]+:[^:]+$/);
      } else {
        expect(r.credentials_ciphertext).toMatch(/^v1:[^:]+:[^:]+:[^:]+$/);
        expect(r.oauth_tokens_ciphertext).toBeNull();
      }
    }
    const dumped = JSON.stringify(all);
    for (const secret of allSecrets()) expect(dumped, secret).not.toContain(secret);
    for (const c of cases) if (c.credentials.username !== undefined) expect(dumped).not.toContain(c.credentials.username);
    const tokensTable = JSON.stringify(await h.gateway.database.db.selectFrom('telematics_connect_tokens').selectAll().execute());
    for (const secret of allSecrets()) expect(tokensTable).not.toContain(secret);

    if (dialect === 'sqlite') {
      const dir = dirname(h.databaseUrl.slice('sqlite:'.length));
      const files = readdirSync(dir);
      expect(files).toContain('gateway.sqlite');
      expect(files.some((f) => f.endsWith('-wal'))).toBe(true);
      for (const file of files) {
        const bytes = readFileSync(`${dir}/${file}`);
        for (const secret of allSecrets()) expect(bytes.includes(Buffer.from(secret)), `${file} holds ${secret}`).toBe(false);
      }
      // The ciphertexts are really in the files (so the search above looked at the right place).
      const sample = all[0]?.credentials_ciphertext ?? all[0]?.oauth_tokens_ciphertext ?? '';
      expect(files.some((f) => readFileSync(`${dir}/${f}`).includes(Buffer.from(sample.slice(0, 40))))).toBe(true);
    }
  });

  it('stored secrets decrypt to the originals only under their own row id', async () => {
    const all = await rows();
    for (const c of cases) {
      const r = all.find((x) => x.id === ids.get(c.provider));
      expect(JSON.parse(await h.gateway.vault.decrypt(r?.credentials_ciphertext ?? '', r?.id ?? ''))).toEqual(c.credentials);
      // Another row's id as AAD does not open it.
      await expect(h.gateway.vault.decrypt(r?.credentials_ciphertext ?? '', oauthId)).rejects.toThrow();
    }
  });

  it('after `secrets rotate` every ciphertext is under the new key and everything reads and works the same', async () => {
    const columns = h.gateway.encryptedColumns;
    const before = await secretsStatus(h.gateway.database.db, columns);
    const oldKey = before.current_key_id;
    expect(oldKey).not.toBeNull();
    expect(before.keys.find((k) => k.current)?.values).toBe(cases.length + 1);
    const listedBefore = await listConnections();
    const rowsBefore = await rows();

    const { keyId, reencrypted } = await h.gateway.vault.rotate(columns);
    expect(keyId).not.toBe(oldKey);
    expect(reencrypted).toBe(cases.length + 1);

    const after = await secretsStatus(h.gateway.database.db, columns);
    expect(after.current_key_id).toBe(keyId);
    expect(after.keys.find((k) => k.id === keyId)?.values).toBe(cases.length + 1);
    for (const k of after.keys.filter((x) => x.id !== keyId)) expect(k.values).toBe(0);

    const rowsAfter = await rows();
    for (const r of rowsAfter) {
      for (const value of [r.credentials_ciphertext, r.oauth_tokens_ciphertext, r.consent_verifier_ciphertext]) {
        if (value !== null) expect(value.startsWith(`v1:${keyId}:`)).toBe(true);
      }
      const old = rowsBefore.find((x) => x.id === r.id);
      // Only the ciphertexts changed.
      expect({ ...r, credentials_ciphertext: null, oauth_tokens_ciphertext: null }).toEqual({ ...old, credentials_ciphertext: null, oauth_tokens_ciphertext: null });
      expect(r.credentials_ciphertext ?? r.oauth_tokens_ciphertext).not.toBe(old?.credentials_ciphertext ?? old?.oauth_tokens_ciphertext);
    }
    expect(await listConnections()).toEqual(listedBefore);
    for (const c of listedBefore) expect(await getConnection(c.id)).toEqual(c);

    for (const c of cases) {
      const r = rowsAfter.find((x) => x.id === ids.get(c.provider));
      expect(JSON.parse(await h.gateway.vault.decrypt(r?.credentials_ciphertext ?? '', r?.id ?? ''))).toEqual(c.credentials);
    }
    const o = rowsAfter.find((x) => x.id === oauthId);
    expect(JSON.parse(await h.gateway.vault.decrypt(o?.oauth_tokens_ciphertext ?? '', oauthId))).toEqual(oauthTokens);

    // The OAuth connection still works: the token as is, then a refresh whose result is stored under the new key.
    expect(await h.gateway.services.oauthConsent.accessToken(org.id, oauthId)).toBe(oauthTokens.access_token);
    h.clock.set(new Date(Date.parse(oauthTokens.expires_at ?? '') - 60_000));
    const refreshed = await h.gateway.services.oauthConsent.accessToken(org.id, oauthId);
    expect(refreshed).not.toBe(oauthTokens.access_token);
    const stored = (await rows()).find((x) => x.id === oauthId)?.oauth_tokens_ciphertext ?? '';
    expect(stored.startsWith(`v1:${keyId}:`)).toBe(true);
    expect(JSON.parse(await h.gateway.vault.decrypt(stored, oauthId))).toMatchObject({ access_token: refreshed });
    expect(stored).not.toContain(refreshed);
    expect((await getConnection(oauthId)).status).toBe('active');
    // And the refreshed token stays out of the logs too.
    expect(logs.join('')).not.toContain(refreshed);
  });
});
