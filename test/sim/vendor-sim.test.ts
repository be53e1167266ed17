import { createHash } from 'node:crypto';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startVendorSim, type VendorSim } from '../../src/sim/vendor-sim.js';

const agent = new Agent();
const START = Date.parse('2026-03-02T12:00:00Z');
let nowMs = START;
const now = (): Date => new Date(nowMs);

interface CallOptions {
  headers?: Record<string, string>;
  form?: Record<string, string>;
  json?: unknown;
}

interface CallResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => Record<string, unknown>;
}

async function call(target: VendorSim, method: 'GET' | 'POST', path: string, opts: CallOptions = {}): Promise<CallResult> {
  const body = opts.form ? new URLSearchParams(opts.form).toString() : opts.json === undefined ? undefined : JSON.stringify(opts.json);
  const type = opts.form ? 'application/x-www-form-urlencoded' : opts.json === undefined ? undefined : 'application/json';
  const res = await request(`${target.url}${path}`, { method, dispatcher: agent, body, headers: { ...(type ? { 'content-type': type } : {}), ...opts.headers } });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const GOOD = basic('fleet-user', 'secret');
const WRONG = basic('fleet-user', 'wrong-password');

async function passwordToken(target: VendorSim, provider: string): Promise<string> {
  const res = await call(target, 'POST', `/${provider}/oauth/token`, {
    form: { grant_type: 'password', username: 'fleet-user', password: 'secret', client_id: 'gw-client', client_secret: 'gw-secret' },
  });
  expect(res.status).toBe(200);
  return String(res.json().access_token);
}

let sim: VendorSim;

beforeAll(async () => {
  sim = await startVendorSim({ now });
});

afterAll(async () => {
  await sim.close();
  await agent.close();
});

beforeEach(() => {
  sim.reset();
  nowMs = START;
});

describe('auth styles', () => {
  it('basic: good credentials read the fleet, wrong-password and no header get a vendor-style XML 401', async () => {
    expect((await call(sim, 'GET', '/vendor1_livelink/Fleet/1', { headers: { authorization: GOOD } })).status).toBe(200);
    const wrong = await call(sim, 'GET', '/vendor1_livelink/Fleet/1', { headers: { authorization: WRONG } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['content-type']).toContain('application/xml');
    expect(wrong.text).toContain('<Error><Code>Unauthorized</Code>');
    expect(wrong.headers['www-authenticate']).toBe('Basic realm="vendor1_livelink"');
    expect((await call(sim, 'GET', '/vendor1_livelink/Fleet/1')).status).toBe(401);
  });

  it('oauth_password: the password grant gives a bearer with refresh token; wrong-password is invalid_grant', async () => {
    const res = await call(sim, 'POST', '/vendor2_machineiq/oauth/token', {
      form: { grant_type: 'password', username: 'u', password: 'p', client_id: 'gw-client', client_secret: 'gw-secret' },
    });
    expect(res.json()).toMatchObject({ token_type: 'Bearer', expires_in: 3600, access_token: expect.any(String) as unknown, refresh_token: expect.any(String) as unknown });
    const token = String(res.json().access_token);
    expect((await call(sim, 'GET', '/vendor2_machineiq/Fleet/1', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    // A token of one vendor opens nothing at another.
    expect((await call(sim, 'GET', '/vendor8_connect/Fleet/1', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    const wrong = await call(sim, 'POST', '/vendor2_machineiq/oauth/token', {
      form: { grant_type: 'password', username: 'u', password: 'wrong-password', client_id: 'gw-client' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await call(sim, 'GET', '/vendor2_machineiq/Fleet/1')).status).toBe(401);
  });

  it('oauth_client_credentials: the fleet login as client, in the form or as Basic; wrong-password is invalid_client', async () => {
    const inForm = await call(sim, 'POST', '/vendor4_caretrack/oauth/token', { form: { grant_type: 'client_credentials', client_id: 'fleet', client_secret: 'pw' } });
    expect(inForm.status).toBe(200);
    const asBasic = await call(sim, 'POST', '/vendor5_visionlink/oauth/token', { form: { grant_type: 'client_credentials' }, headers: { authorization: GOOD } });
    expect(asBasic.status).toBe(200);
    const token = String(asBasic.json().access_token);
    expect((await call(sim, 'GET', '/vendor5_visionlink/Fleet/1', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const wrong = await call(sim, 'POST', '/vendor4_caretrack/oauth/token', { form: { grant_type: 'client_credentials' }, headers: { authorization: WRONG } });
    expect(wrong.status).toBe(401);
    expect(wrong.json()).toMatchObject({ error: 'invalid_client' });
    const otherGrant = await call(sim, 'POST', '/vendor4_caretrack/oauth/token', { form: { grant_type: 'password', client_id: 'x', username: 'u', password: 'p' } });
    expect(otherGrant.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('api_key: X-Api-Key opens the API; wrong-key and no key are 401', async () => {
    const ok = await call(sim, 'GET', '/vendor13/v1/account', { headers: { 'x-api-key': 'k-123' } });
    expect(ok.json()).toEqual({ account: { id: 'acc_13001', name: 'Simulated fleet (vendor13)' } });
    const wrong = await call(sim, 'GET', '/vendor13/v1/account', { headers: { 'x-api-key': 'wrong-key' } });
    expect(wrong.status).toBe(401);
    expect(wrong.json()).toMatchObject({ error: 'unauthorized', message: 'Invalid API key.' });
    expect((await call(sim, 'GET', '/vendor19_connect/v1/vehicles')).status).toBe(401);
  });

  it('session_login: a login answers a session token used as bearer; wrong-password is 401', async () => {
    const login = await call(sim, 'POST', '/vendor16/auth/login', { json: { username: 'u', password: 'p' } });
    expect(login.json()).toMatchObject({ session_token: expect.any(String) as unknown, expires_in: 1800 });
    const units = await call(sim, 'GET', '/vendor16/api/v2/units', { headers: { authorization: `Bearer ${String(login.json().session_token)}` } });
    expect(units.status).toBe(200);
    expect((units.json().data as unknown[]).length).toBe(25);
    expect((await call(sim, 'POST', '/vendor16/auth/login', { json: { username: 'u', password: 'wrong-password' } })).status).toBe(401);
    expect((await call(sim, 'POST', '/vendor18_tyresense/auth/login', { json: { username: 'u' } })).status).toBe(400);
  });

  it('bearers expire', async () => {
    const token = await passwordToken(sim, 'vendor10_fleetforce');
    nowMs += 3601_000;
    expect((await call(sim, 'GET', '/vendor10_fleetforce/Fleet/1', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  it('stubs have no API', async () => {
    expect((await call(sim, 'GET', '/vendor20_tireview/Fleet/1')).status).toBe(404);
    expect((await call(sim, 'POST', '/vendor21_360/oauth/token', { form: { grant_type: 'password' } })).status).toBe(404);
  });
});

describe('ISO 15143-3 feeds', () => {
  const fleetXml = async (provider: string, page = 1): Promise<string> => {
    const res = await call(sim, 'GET', `/${provider}/Fleet/${page}`, { headers: { authorization: GOOD } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('application/xml');
    return res.text;
  };
  const fleetJson = async (provider: string, page = 1): Promise<Record<string, unknown>> => {
    const token = await passwordToken(sim, provider);
    const res = await call(sim, 'GET', `/${provider}/Fleet/${page}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    return res.json();
  };

  it('vendor1 serves AEMP 2.0 XML with datetime attributes and the standard element names', async () => {
    const xml = await fleetXml('vendor1_livelink');
    expect(xml).toContain('<Fleet xmlns="http://standards.iso.org/iso/15143/-3" version="1" snapshotTime="2026-03-02T12:00:00Z">');
    for (const name of ['EquipmentHeader', 'OEMName', 'Model', 'EquipmentID', 'SerialNumber', 'PIN', 'Latitude', 'Longitude', 'Hour', 'FuelUnits', 'FuelConsumed', 'Percent', 'Running']) {
      expect(xml).toContain(`<${name}>`);
    }
    expect(xml).toMatch(/<Location datetime="2026-03-02T12:00:00Z">/);
    expect(xml).toMatch(/<CumulativeOperatingHours datetime="[^"]+Z">\s*<Hour>[\d.]+<\/Hour>/);
    expect(xml.match(/<Equipment>/g)).toHaveLength(10);
  });

  it('vendor3 uses the other namespace, datetime as a child element and the 0001-01-01 placeholder', async () => {
    const xml = await fleetXml('vendor3_himate');
    expect(xml).toContain('xmlns="http://www.jcmanet.or.jp/english2017/ISO/15143/-3/20190501"');
    expect(xml).toMatch(/<CumulativeOperatingHours>\s*<Hour>[\d.]+<\/Hour>\s*<datetime>2026-03-02T\d\d:\d\d:00Z<\/datetime>/);
    expect(xml).toContain('<UnitInstallDateTime>0001-01-01T00:00:00</UnitInstallDateTime>');
    expect(xml).toMatch(/<Location>[\s\S]*?<datetime>0001-01-01T00:00:00<\/datetime>/);
  });

  it('time formats differ: fractional with Z, .NET fractional without Z, plain without Z', async () => {
    expect((await fleetJson('vendor2_machineiq')).snapshotTime).toBe('2026-03-02T12:00:00.000Z');
    const visionlink = await call(sim, 'POST', '/vendor5_visionlink/oauth/token', { form: { grant_type: 'client_credentials', client_id: 'f', client_secret: 'p' } });
    const doc = await call(sim, 'GET', '/vendor5_visionlink/Fleet/1', { headers: { authorization: `Bearer ${String(visionlink.json().access_token)}` } });
    expect(doc.json().snapshotTime).toBe('2026-03-02T12:00:00.0000000');
    expect(await fleetXml('vendor7_consite')).toContain('snapshotTime="2026-03-02T12:00:00"');
  });

  it('JSON feeds carry the same shape with lists for Links and Equipment', async () => {
    const doc = await fleetJson('vendor2_machineiq');
    expect(doc).not.toHaveProperty('xmlns');
    const equipment = doc.Equipment as Record<string, Record<string, unknown>>[];
    expect(equipment).toHaveLength(10);
    expect(equipment[0]?.EquipmentHeader).toMatchObject({ OEMName: expect.any(String) as unknown, PIN: expect.any(String) as unknown, SerialNumber: expect.any(String) as unknown });
    expect(equipment[0]?.Location).toMatchObject({ datetime: expect.any(String) as unknown, Latitude: expect.any(Number) as unknown, Longitude: expect.any(Number) as unknown });
    expect(equipment[0]?.FuelUsed).toMatchObject({ FuelUnits: 'litre', FuelConsumed: expect.any(Number) as unknown });
    expect(doc.Links).toEqual(expect.arrayContaining([{ rel: 'self', href: expect.stringMatching(/\/vendor2_machineiq\/Fleet\/1$/) as unknown }]));
  });

  /** Follows `next` links like a naive client, stopping on a repeat or an empty page, at most 8 hops. */
  async function crawl(provider: string, auth: string): Promise<{ pages: string[]; counts: number[] }> {
    const pages: string[] = [];
    const counts: number[] = [];
    let path: string | undefined = `/${provider}/Fleet/1`;
    while (path !== undefined && pages.length < 8) {
      pages.push(path.split('/').pop() ?? '');
      const doc = (await call(sim, 'GET', path, { headers: { authorization: auth } })).json();
      const equipment = doc.Equipment as unknown[];
      counts.push(equipment.length);
      const next = (doc.Links as { rel: string; href: string }[]).find((l) => l.rel === 'next');
      path = equipment.length === 0 || next === undefined ? undefined : new URL(next.href).pathname;
    }
    return { pages, counts };
  }

  it('Links: standard feeds end, vendor9 loops back to page 1, vendor6 links next even from an empty page', async () => {
    expect(await crawl('vendor10_fleetforce', `Bearer ${await passwordToken(sim, 'vendor10_fleetforce')}`)).toEqual({ pages: ['1', '2', '3'], counts: [10, 10, 5] });
    expect((await crawl('vendor9_sitewatch', GOOD)).pages).toEqual(['1', '2', '3', '1', '2', '3', '1', '2']);
    expect(await crawl('vendor6_lida', GOOD)).toEqual({ pages: ['1', '2', '3', '4'], counts: [10, 10, 5, 0] });
    const empty = (await call(sim, 'GET', '/vendor6_lida/Fleet/4', { headers: { authorization: GOOD } })).json();
    expect(empty.Links).toEqual(expect.arrayContaining([expect.objectContaining({ rel: 'next', href: expect.stringMatching(/Fleet\/5$/) as unknown })]));
  });

  it('Links in XML: vendor3 links its last page to Fleet/0, which serves page 1 again; vendor4 links back to 1', async () => {
    const last = await fleetXml('vendor3_himate', 3);
    expect(last).toMatch(/<rel>next<\/rel>\s*<href>[^<]+\/vendor3_himate\/Fleet\/0<\/href>/);
    const zero = await fleetXml('vendor3_himate', 0);
    expect(zero.replace(/Fleet\/0/, 'Fleet/1')).toBe(await fleetXml('vendor3_himate', 1));
    expect(await fleetXml('vendor1_livelink', 3)).not.toContain('<rel>next</rel>');
    const token = await call(sim, 'POST', '/vendor4_caretrack/oauth/token', { form: { grant_type: 'client_credentials', client_id: 'f', client_secret: 'p' } });
    const caretrack = await call(sim, 'GET', '/vendor4_caretrack/Fleet/3', { headers: { authorization: `Bearer ${String(token.json().access_token)}` } });
    expect(caretrack.text).toMatch(/<rel>next<\/rel>\s*<href>[^<]+\/vendor4_caretrack\/Fleet\/1<\/href>/);
    expect(caretrack.text).toMatch(/datetime="2026-03-02T\d\d:\d\d:00\.000Z"/);
  });

  it('time series: hourly readings over the window, paged, with Links; fault codes only when present', async () => {
    const fleet = (await call(sim, 'GET', '/vendor1_livelink/Fleet/1', { headers: { authorization: GOOD } })).text;
    const pin = /<PIN>([^<]+)<\/PIN>/.exec(fleet)?.[1] ?? '';
    const base = `/vendor1_livelink/Fleet/Equipment/ID/${pin}/CumulativeOperatingHours/2026-03-01T00:00:00Z/2026-03-02T00:00:00Z`;
    const page1 = (await call(sim, 'GET', `${base}/1`, { headers: { authorization: GOOD } })).text;
    expect(page1).toMatch(/^<\?xml[^>]*>\n<CumulativeOperatingHours xmlns="http:\/\/standards.iso.org\/iso\/15143\/-3"/);
    expect(page1.match(/<CumulativeOperatingHours datetime=/g)).toHaveLength(10);
    expect(page1).toContain(`<PIN>${pin}</PIN>`);
    const page3 = (await call(sim, 'GET', `${base}/3`, { headers: { authorization: GOOD } })).text;
    expect(page3.match(/<CumulativeOperatingHours datetime=/g)).toHaveLength(5);
    expect(page3).toContain('datetime="2026-03-02T00:00:00Z"');
    expect(page3).not.toContain('<rel>next</rel>');
    const faults = (await call(sim, 'GET', `/vendor1_livelink/Fleet/Equipment/ID/${pin}/FaultCodes/2026-03-01T00:00:00Z/2026-03-02T00:00:00Z/1`, { headers: { authorization: GOOD } })).text;
    expect(faults).toMatch(/<FaultCodes /);
    expect((faults.match(/<FaultCode datetime=/g) ?? []).length).toBeLessThan(25);
    expect((await call(sim, 'GET', `/vendor1_livelink/Fleet/Equipment/ID/${pin}/Nope/2026-03-01T00:00:00Z/2026-03-02T00:00:00Z/1`, { headers: { authorization: GOOD } })).status).toBe(404);
    expect((await call(sim, 'GET', `/vendor1_livelink/Fleet/Equipment/ID/${pin}/Locations/2026-01-01T00:00:00Z/2026-03-02T00:00:00Z/1`, { headers: { authorization: GOOD } })).status).toBe(400);
    expect((await call(sim, 'GET', '/vendor1_livelink/Fleet/abc', { headers: { authorization: GOOD } })).status).toBe(400);
  });

  it('is deterministic: the same clock and fleet size give the same documents, each provider its own fleet', async () => {
    const other = await startVendorSim({ now });
    try {
      const a = await call(sim, 'GET', '/vendor1_livelink/Fleet/2', { headers: { authorization: GOOD } });
      const b = await call(other, 'GET', '/vendor1_livelink/Fleet/2', { headers: { authorization: GOOD } });
      expect(b.text.replaceAll(other.url, '')).toBe(a.text.replaceAll(sim.url, ''));
      const livelinkPins = a.text.match(/<PIN>[^<]+/g);
      const himatePins = (await call(sim, 'GET', '/vendor3_himate/Fleet/2', { headers: { authorization: GOOD } })).text.match(/<PIN>[^<]+/g);
      expect(livelinkPins).not.toEqual(himatePins);
    } finally {
      await other.close();
    }
  });

  it('fleetSize sets the fleet', async () => {
    const small = await startVendorSim({ fleetSize: 3, now });
    try {
      const doc = (await call(small, 'GET', '/vendor6_lida/Fleet/1', { headers: { authorization: GOOD } })).json();
      expect(doc.Equipment).toHaveLength(3);
    } finally {
      await small.close();
    }
  });
});

describe('OEM OAuth (authorization code + PKCE)', () => {
  const P = 'vendor11_operations_center';
  const verifier = 'v'.repeat(20) + '-verifier-0123456789abcdefghijklmnop';
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const redirectUri = 'http://127.0.0.1:9/callback';
  const authorize = (extra: Record<string, string> = {}, drop?: string) => {
    const params: Record<string, string> = { response_type: 'code', client_id: 'gw-client', redirect_uri: redirectUri, state: 'st-1', code_challenge: challenge, code_challenge_method: 'S256', ...extra };
    if (drop) delete params[drop];
    return call(sim, 'GET', `/${P}/oauth/authorize?${new URLSearchParams(params).toString()}`);
  };
  const codeOf = async (): Promise<string> => new URL(String((await authorize()).headers.location)).searchParams.get('code') ?? '';
  const exchange = (code: string, codeVerifier = verifier, extra: Record<string, string> = {}) =>
    call(sim, 'POST', `/${P}/oauth/token`, { form: { grant_type: 'authorization_code', code, code_verifier: codeVerifier, redirect_uri: redirectUri, client_id: 'gw-client', client_secret: 'gw-secret', ...extra } });
  const refresh = (token: string) => call(sim, 'POST', `/${P}/oauth/token`, { form: { grant_type: 'refresh_token', refresh_token: token, client_id: 'gw-client', client_secret: 'gw-secret' } });

  it('authorize redirects to redirect_uri with code and state', async () => {
    const res = await authorize();
    expect(res.status).toBe(302);
    const location = new URL(String(res.headers.location));
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(location.searchParams.get('state')).toBe('st-1');
    expect(location.searchParams.get('code')).toMatch(/^ac_/);
  });

  it('deny=1 redirects with access_denied; a missing or invalid parameter is a 400', async () => {
    const denied = new URL(String((await authorize({ deny: '1' })).headers.location));
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('state')).toBe('st-1');
    expect(denied.searchParams.has('code')).toBe(false);
    for (const drop of ['response_type', 'client_id', 'redirect_uri', 'state', 'code_challenge', 'code_challenge_method']) {
      expect((await authorize({}, drop)).status, drop).toBe(400);
    }
    expect((await authorize({ code_challenge_method: 'plain' })).status).toBe(400);
    expect((await authorize({ redirect_uri: 'javascript:alert(1)' })).status).toBe(400);
  });

  it('exchanges a code once, with the right verifier and redirect_uri only', async () => {
    const code = await codeOf();
    expect((await exchange(code, `${verifier}x`)).json()).toMatchObject({ error: 'invalid_grant' });
    expect((await exchange(code, verifier, { redirect_uri: 'http://127.0.0.1:9/other' })).json()).toMatchObject({ error: 'invalid_grant' });
    const ok = await exchange(code);
    expect(ok.status).toBe(200);
    expect(ok.json()).toMatchObject({ token_type: 'Bearer', expires_in: 3600, access_token: expect.any(String) as unknown, refresh_token: expect.any(String) as unknown });
    expect((await exchange(code)).json()).toMatchObject({ error: 'invalid_grant' });
    expect((await exchange('ac_unknown')).status).toBe(400);
  });

  it('codes expire after 10 minutes', async () => {
    const code = await codeOf();
    nowMs += 10 * 60_000 + 1;
    expect((await exchange(code)).json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('rotates refresh tokens; a used or revoked one is invalid_grant', async () => {
    const first = (await exchange(await codeOf())).json();
    const second = await refresh(String(first.refresh_token));
    expect(second.status).toBe(200);
    expect(second.json().refresh_token).not.toBe(first.refresh_token);
    expect((await refresh(String(first.refresh_token))).json()).toMatchObject({ error: 'invalid_grant' });
    sim.revokeRefreshTokens(P);
    const revoked = await refresh(String(second.json().refresh_token));
    expect(revoked.status).toBe(400);
    expect(revoked.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('serves the machine API behind the bearer, in each vendor shape', async () => {
    const tokens = (await exchange(await codeOf())).json();
    const auth = { authorization: `Bearer ${String(tokens.access_token)}` };
    const machines = (await call(sim, 'GET', `/${P}/api/machines`, { headers: auth })).json();
    expect(machines.total).toBe(25);
    const first = (machines.values as { id: string }[])[0];
    const telemetry = await call(sim, 'GET', `/${P}/api/machines/${first?.id ?? ''}/telemetry`, { headers: auth });
    expect(telemetry.json()).toMatchObject({ machineId: first?.id, measurements: expect.arrayContaining([expect.objectContaining({ name: 'EngineHours' })]) as unknown });
    expect((await call(sim, 'GET', `/${P}/api/machines`)).status).toBe(401);
    expect((await call(sim, 'GET', '/vendor12_fieldops/api/machines', { headers: auth })).status).toBe(401);
  });
});

describe('aggregators and TPMS', () => {
  it('TPMS vendors report per-wheel pressure in different units', async () => {
    const login = await call(sim, 'POST', '/vendor18_tyresense/auth/login', { json: { username: 'u', password: 'p' } });
    const tyresense = (await call(sim, 'GET', '/vendor18_tyresense/api/vehicles', { headers: { authorization: `Bearer ${String(login.json().session_token)}` } })).json();
    const tyres = (tyresense.vehicles as { tyres: { position: string; pressure_bar: number; temperature_c: number }[] }[])[0]?.tyres ?? [];
    expect(tyres.map((t) => t.position)).toEqual(['1L', '1R', '2LO', '2LI', '2RI', '2RO']);
    expect(tyres[1]?.pressure_bar).toBeGreaterThan(6);
    expect(tyres[1]?.pressure_bar).toBeLessThan(10);
    const connect = await call(sim, 'GET', '/vendor19_connect/v1/vehicles', { headers: { 'x-api-key': 'k' } });
    const wheel = (JSON.parse(connect.text) as { wheels: { pressurePsi: number; tempF: number }[] }[])[1]?.wheels[0];
    expect(wheel?.pressurePsi).toBeGreaterThan(100);
    expect(wheel?.tempF).toBeGreaterThan(80);
    const alerts = (await call(sim, 'GET', '/vendor19_connect/v1/alerts', { headers: { 'x-api-key': 'k' } })).json();
    expect((alerts.items as unknown[]).length).toBeGreaterThan(0);
  });

  it('aggregators answer their account and unit lists', async () => {
    expect((await call(sim, 'GET', '/vendor15/rest/whoami', { headers: { authorization: GOOD } })).json()).toMatchObject({ customer: { name: 'Simulated fleet (vendor15)' } });
    const vehicles = (await call(sim, 'GET', '/vendor14/api/vehicles', { headers: { 'x-api-key': 'k' } })).json();
    expect((vehicles.vehicles as { engineSeconds: number }[])[0]?.engineSeconds).toBeGreaterThan(0);
  });
});

describe('modes', () => {
  it('fail answers the status on every endpoint of that provider only', async () => {
    sim.setMode('vendor1_livelink', { kind: 'fail', status: 503 });
    const res = await call(sim, 'GET', '/vendor1_livelink/Fleet/1', { headers: { authorization: GOOD } });
    expect(res.status).toBe(503);
    expect(res.json()).toMatchObject({ error: 'server_error' });
    expect((await call(sim, 'GET', '/vendor1_livelink/nowhere')).status).toBe(503);
    expect((await call(sim, 'GET', '/vendor3_himate/Fleet/1', { headers: { authorization: GOOD } })).status).toBe(200);
    sim.setMode('vendor2_machineiq', { kind: 'fail' });
    expect((await call(sim, 'POST', '/vendor2_machineiq/oauth/token', { form: { grant_type: 'password' } })).status).toBe(500);
  });

  it('slow delays the answer', async () => {
    sim.setMode('vendor13', { kind: 'slow', delayMs: 150 });
    const started = Date.now();
    expect((await call(sim, 'GET', '/vendor13/v1/account', { headers: { 'x-api-key': 'k' } })).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('rate_limited answers 429 with Retry-After', async () => {
    sim.setMode('vendor16', { kind: 'rate_limited', retryAfterSeconds: 30 });
    const res = await call(sim, 'POST', '/vendor16/auth/login', { json: { username: 'u', password: 'p' } });
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('30');
  });

  it('reject refuses any credentials in each style', async () => {
    sim.setMode('*', { kind: 'reject' });
    expect((await call(sim, 'GET', '/vendor1_livelink/Fleet/1', { headers: { authorization: GOOD } })).status).toBe(401);
    expect((await call(sim, 'GET', '/vendor13/v1/account', { headers: { 'x-api-key': 'k' } })).status).toBe(401);
    expect((await call(sim, 'POST', '/vendor16/auth/login', { json: { username: 'u', password: 'p' } })).status).toBe(401);
    const token = await call(sim, 'POST', '/vendor2_machineiq/oauth/token', { form: { grant_type: 'password', username: 'u', password: 'p', client_id: 'c' } });
    expect(token.json()).toMatchObject({ error: 'invalid_grant' });
    sim.setMode('vendor1_livelink', { kind: 'up' });
    expect((await call(sim, 'GET', '/vendor1_livelink/Fleet/1', { headers: { authorization: GOOD } })).status).toBe(200);
  });

  it('can be switched over HTTP and per request, and logs what it answered', async () => {
    const set = await call(sim, 'POST', '/_sim/mode', { json: { provider: 'vendor17', mode: { kind: 'fail', status: 502 } } });
    expect(set.status).toBe(200);
    expect(sim.mode('vendor17')).toEqual({ kind: 'fail', status: 502 });
    expect((await call(sim, 'GET', '/vendor17/account', { headers: { 'x-api-key': 'k' } })).status).toBe(502);
    expect((await call(sim, 'POST', '/_sim/mode', { json: { provider: 'nobody', mode: { kind: 'up' } } })).status).toBe(400);
    expect((await call(sim, 'POST', '/_sim/mode', { json: { provider: 'vendor17', mode: { kind: 'sideways' } } })).status).toBe(400);
    expect((await call(sim, 'GET', '/vendor13/v1/account?sim_fail=503', { headers: { 'x-api-key': 'k' } })).status).toBe(503);
    expect((await call(sim, 'GET', '/vendor13/v1/account?sim_rate_limit=5', { headers: { 'x-api-key': 'k' } })).headers['retry-after']).toBe('5');
    expect(sim.requests('vendor13')).toMatchObject([
      { provider: 'vendor13', method: 'GET', path: '/vendor13/v1/account', status: 503, account: 'k' },
      { provider: 'vendor13', method: 'GET', path: '/vendor13/v1/account', status: 429, account: 'k' },
    ]);
    for (const r of sim.requests()) expect(r.endedAt).toBeGreaterThanOrEqual(r.startedAt);
    const logged = (await call(sim, 'GET', '/_sim/requests?provider=vendor17')).json();
    expect(logged.requests).toMatchObject([{ provider: 'vendor17', method: 'GET', path: '/vendor17/account', status: 502, account: 'k' }]);
    await call(sim, 'POST', '/_sim/reset');
    expect(sim.mode('vendor17')).toEqual({ kind: 'up' });
    expect(sim.requests()).toEqual([]);
  });
});

describe('per-fleet endpoints (FleetEndpoints)', () => {
  const json = { accept: 'application/json' };

  it('a token path of its own, with the scope and audience the vendor asks for; each token issued is counted', async () => {
    sim.setFleet('vendor2_machineiq', 'fleet-user', { endpoints: { tokenPath: '/auth/v2/token', requireScope: 'aemp.read', requireAudience: 'aemp-api' } });
    const form = { grant_type: 'password', username: 'fleet-user', password: 'secret', client_id: 'gw' };
    expect((await call(sim, 'POST', '/vendor2_machineiq/oauth/token', { form: { ...form, scope: 'aemp.read', audience: 'aemp-api' } })).status, 'moved').toBe(404);
    expect((await call(sim, 'POST', '/vendor2_machineiq/auth/v2/token', { form })).json()).toMatchObject({ error: 'invalid_scope' });
    expect((await call(sim, 'POST', '/vendor2_machineiq/auth/v2/token', { form: { ...form, scope: 'aemp.read' } })).json()).toMatchObject({ error: 'invalid_request' });
    expect(sim.tokensIssued('vendor2_machineiq')).toBe(0);
    expect((await call(sim, 'POST', '/vendor2_machineiq/auth/v2/token', { form: { ...form, scope: 'other aemp.read', audience: 'aemp-api' } })).status).toBe(200);
    expect((await call(sim, 'POST', '/vendor2_machineiq/elsewhere', { form })).status).toBe(404);
    expect(sim.tokensIssued('vendor2_machineiq')).toBe(1);
  });

  it('a fleet id in the path and pages from 0, linked as such; the plain path and other ids are 404', async () => {
    sim.setFleet('vendor2_machineiq', 'fleet-user', { endpoints: { fleetId: 'F-1', firstPage: 0 } });
    const token = await passwordToken(sim, 'vendor2_machineiq');
    const headers = { authorization: `Bearer ${token}`, ...json };
    expect((await call(sim, 'GET', '/vendor2_machineiq/Fleet/1', { headers })).status).toBe(404);
    expect((await call(sim, 'GET', '/vendor2_machineiq/F-2/Fleet/0', { headers })).status).toBe(404);
    const first = (await call(sim, 'GET', '/vendor2_machineiq/F-1/Fleet/0', { headers })).json() as { Links: { rel: string; href: string }[]; Equipment: unknown[] };
    expect(first.Equipment).toHaveLength(10);
    expect(first.Links.map((l) => `${l.rel} ${new URL(l.href).pathname}`)).toEqual(['self /vendor2_machineiq/F-1/Fleet/0', 'next /vendor2_machineiq/F-1/Fleet/1', 'last /vendor2_machineiq/F-1/Fleet/2']);
  });

  it('the series without ID/ and on the other host only; times must be whole seconds with Z', async () => {
    sim.setFleet('vendor1_livelink', 'fleet-user', { endpoints: { seriesWithoutId: true, seriesOnOtherHost: true } });
    const fleet = await call(sim, 'GET', '/vendor1_livelink/Fleet/1', { headers: { authorization: GOOD } });
    const pin = /<PIN>([^<]+)<\/PIN>/.exec(fleet.text)?.[1] ?? '';
    const window = `${encodeURIComponent('2026-03-02T06:00:00Z')}/${encodeURIComponent('2026-03-02T12:00:00Z')}/1`;
    const get = (path: string) => call(sim, 'GET', path, { headers: { authorization: GOOD } });
    expect((await get(`/vendor1_livelink/Fleet/Equipment/ID/${pin}/CumulativeOperatingHours/${window}`)).status).toBe(404);
    expect((await get(`/vendor1_livelink/Fleet/Equipment/${pin}/CumulativeOperatingHours/${window}`)).status).toBe(404);
    expect((await get(`/other-host/vendor1_livelink/Fleet/Equipment/ID/${pin}/CumulativeOperatingHours/${window}`)).status).toBe(404);
    const served = await get(`/other-host/vendor1_livelink/Fleet/Equipment/${pin}/CumulativeOperatingHours/${window}`);
    expect(served.status).toBe(200);
    expect(served.text).toContain('other-host/vendor1_livelink/Fleet/Equipment/');
    const fractional = `${encodeURIComponent('2026-03-02T06:00:00.000Z')}/${encodeURIComponent('2026-03-02T12:00:00Z')}/1`;
    expect((await get(`/other-host/vendor1_livelink/Fleet/Equipment/${pin}/CumulativeOperatingHours/${fractional}`)).status).toBe(400);
    expect(sim.requests('vendor1_livelink').at(-1)?.provider, 'the other host is logged as the provider').toBe('vendor1_livelink');
  });

  it('one call per URL per N seconds of its clock, else 429 with Retry-After; a missing page is 404', async () => {
    sim.setFleet('vendor1_livelink', 'fleet-user', { endpoints: { urlIntervalSeconds: 60, missingPages: [3] } });
    const get = (path: string) => call(sim, 'GET', path, { headers: { authorization: GOOD } });
    expect((await get('/vendor1_livelink/Fleet/1')).status).toBe(200);
    expect((await get('/vendor1_livelink/Fleet/2')).status, 'another URL').toBe(200);
    nowMs += 30_000;
    const again = await get('/vendor1_livelink/Fleet/1');
    expect(again.status).toBe(429);
    expect(again.headers['retry-after']).toBe('30');
    nowMs += 30_000;
    expect((await get('/vendor1_livelink/Fleet/1')).status).toBe(200);
    expect((await get('/vendor1_livelink/Fleet/3')).status).toBe(404);
  });
});
