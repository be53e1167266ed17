import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { parseX12, validateInterchange } from '../../../src/modules/edi/x12/index.js';
import type { Interchange } from '../../../src/modules/edi/x12/index.js';
import { type DialectName, type Harness, startHarness } from '../../support/harness.js';

/** Reads a hand-written interchange from ./fixtures byte for byte. */
export function readEdiFixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'latin1');
}

/** The org's own interchange id in every fixture (ISA07/ISA08). */
export const OUR_ISA = 'ZZ/TIREGATEWAY';

export interface SubmitBody {
  message_id: string;
  partner: { id: string; name: string };
  acknowledgments: { group: string; code: string }[];
  reply?: { message_id: string; control_number: string; size: number; x12?: string };
  documents: { type: string; control_number: string; status: string; po_number?: string; order_id?: string; errors?: { code: string; message: string; line?: string; position?: number; segment_id?: string; element?: number }[]; notes?: string[] }[];
  interchange_ack?: { code: string; note: string };
  status?: 'accepted' | 'partial' | 'rejected';
  errors?: EdiErrorBody[];
  omitted?: { message_id: string; documents: number; acknowledgments: number; findings: number };
}

export interface EdiErrorBody {
  code: string;
  message: string;
  position?: number;
  segment_id?: string;
  element?: number;
  group_control?: string;
  set_control?: string;
  value?: string;
}

/** The catalog the fixtures order from; OLD-1 is inactive. */
export async function seedEdiCatalog(h: Harness, orgSlug: string): Promise<void> {
  const { key } = await h.key(orgSlug, 'products:write');
  const products = [
    { sku: 'TIRE-225', name: 'Touring 225/45R17' },
    { sku: 'VALVE-KIT', name: 'Valve stem kit' },
    { sku: 'WINTER-205', name: 'Winter 205/55R16' },
    { sku: 'TPMS-SENSOR', name: 'TPMS sensor' },
    { sku: 'LUG-NUT', name: 'Lug nut, chrome' },
    { sku: 'OLD-1', name: 'Discontinued tread', status: 'inactive' },
  ];
  for (const payload of products) {
    const res = await h.request({ method: 'POST', url: '/v1/products', payload, key });
    if (res.statusCode !== 201) throw new Error(`seeding ${payload.sku}: ${res.body}`);
  }
}

/** BUYERCO (004010, default qualifiers) and DEALERNET (005010, SK before VP), the senders of the fixtures. */
export async function seedPartners(h: Harness, orgSlug: string, opts: { outboundUrl?: string } = {}): Promise<{ buyer: string; dealer: string }> {
  await h.org(orgSlug);
  const partners = h.gateway.services.ediPartners;
  const buyer = await partners.create({
    org: orgSlug,
    name: 'BuyerCo',
    isa: 'ZZ/BUYERCO',
    ourIsa: OUR_ISA,
    ...(opts.outboundUrl === undefined ? {} : { outboundUrl: opts.outboundUrl }),
  });
  const dealer = await partners.create({ org: orgSlug, name: 'DealerNet', isa: '01/123456789', gs: 'DEALERNET', skuQualifiers: 'SK,VP' });
  return { buyer: buyer.id, dealer: dealer.id };
}

export function submit(h: Harness, key: string, body: string | Buffer, contentType = 'text/plain') {
  return h.request({ method: 'POST', url: '/v1/edi', payload: body, key, headers: { 'content-type': contentType } });
}

/** Submits and expects the interchange to be taken (200), returning the answer. */
export async function submitOk(h: Harness, key: string, body: string | Buffer): Promise<SubmitBody> {
  const res = await submit(h, key, body);
  expect(res.statusCode, res.body.slice(0, 2000)).toBe(200);
  return res.json<SubmitBody>();
}

/** An 850 from BUYERCO ordering 4 TIRE-225 under `po`; `extra` segments go after the BEG (REF*DP with no REF02 breaks REF's R0203). */
export function set850(control: string, po: string, extra: string[] = [], version = '004010'): string[] {
  const body = [`BEG*00*SA*${po}**20260601`, ...extra, 'N1*ST*STORE 1', 'N3*100 Main St', 'N4*Springfield*IL*62701*US', 'PO1*1*4*EA*89.99**VP*TIRE-225', 'CTT*1'];
  const st = version.startsWith('005010') ? `ST*850*${control}*005010` : `ST*850*${control}`;
  return [st, ...body, `SE*${body.length + 2}*${control}`];
}

/** A BUYERCO interchange in ISA12 `isaVersion` of the given groups (GS06, GS08 and sets), one segment per line. */
export function buyerInterchange(isa13: number, groups: { control: string; version?: string; sets: string[][] }[], isaVersion = '00401'): string {
  const isa11 = isaVersion >= '00402' ? '^' : 'U';
  const control = String(isa13).padStart(9, '0');
  const isa = `ISA*00*          *00*          *ZZ*BUYERCO        *ZZ*TIREGATEWAY    *260601*1200*${isa11}*${isaVersion}*${control}*0*P*>`;
  const body = groups.flatMap((g) => [`GS*PO*BUYERCO*TIREGW*20260601*1200*${g.control}*X*${g.version ?? '004010'}`, ...g.sets.flat(), `GE*${g.sets.length}*${g.control}`]);
  return [isa, ...body, `IEA*${groups.length}*${control}`].map((seg) => `${seg}~\r\n`).join('');
}

export interface ReadBack {
  interchange: Interchange;
  /** Segments between ST and SE of the first set, elements joined with '*'. */
  body: string[];
}

/**
 * Parses a generated interchange with our own parser: it must be clean, every 850/997 must validate, and its
 * trailers must count what is there (SE01 segments, GE01 sets, IEA01 groups).
 */
export function readBack(x12: string): ReadBack {
  const result = parseX12(x12);
  if (!result.ok) throw new Error(`generated X12 does not parse: ${JSON.stringify(result.issues)}`);
  expect(result.issues).toEqual([]);
  expect(validateInterchange(result.interchange)).toEqual([]);
  const ic = result.interchange;
  expect(ic.iea[0]).toBe(String(ic.groups.length));
  expect(ic.iea[1]).toBe(ic.controlNumber);
  for (const group of ic.groups) {
    expect(group.ge?.[0]).toBe(String(group.transactionSets.length));
    expect(group.ge?.[1]).toBe(group.controlNumber);
    for (const set of group.transactionSets) {
      expect(set.se?.[0]).toBe(String(set.segments.length));
      expect(set.se?.[1]).toBe(set.controlNumber);
    }
  }
  const set = ic.groups[0]?.transactionSets[0];
  if (set === undefined) throw new Error('no transaction set');
  return { interchange: ic, body: set.segments.slice(1, -1).map((s) => [s.id, ...s.elements].join('*')) };
}

/** The i-th 997 set of an answer's reply (over its FA groups, in order), between ST and SE, elements joined with '*'. */
export function replySet(answer: Pick<SubmitBody, 'reply'>, i = 0): string[] {
  const x12 = answer.reply?.x12;
  if (x12 === undefined) throw new Error('the answer has no inline reply');
  const set = readBack(x12).interchange.groups.flatMap((g) => g.transactionSets)[i];
  if (set === undefined) throw new Error(`the reply has no 997 #${i}`);
  return set.segments.slice(1, -1).map((s) => [s.id, ...s.elements].join('*'));
}

export interface Received {
  body: string;
  headers: IncomingHttpHeaders;
}

export interface PartnerEndpoint {
  url: string;
  received: Received[];
  /** Status the endpoint answers with from now on. */
  answer(status: number): void;
  close(): Promise<void>;
}

/** A partner's inbound endpoint on loopback: records every POST and answers with the chosen status. */
export async function startPartnerEndpoint(): Promise<PartnerEndpoint> {
  const received: Received[] = [];
  let status = 200;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.statusCode = status;
      res.end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/edi/inbound`,
    received,
    answer: (s) => {
      status = s;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The usual EDI suite: org `acme` with the fixtures' catalog and partners, and a key for EDI and reading orders. */
export async function startEdiHarness(dialect: DialectName): Promise<{ h: Harness; key: string }> {
  const h = await startHarness(dialect);
  await seedEdiCatalog(h, 'acme');
  await seedPartners(h, 'acme');
  const { key } = await h.key('acme', 'edi:read,edi:write,orders:read');
  return { h, key };
}
