import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundValidation } from '../../../../src/modules/edi/partners/partners.service.js';
import { AppError } from '../../../../src/platform/core/errors.js';
import { expectError } from '../../../support/auth-checks.js';
import { useInProcessCli } from '../../../support/cli.js';
import { dialects, type Harness, startHarness } from '../../../support/harness.js';
import { readEdiFixture, submit } from '../edi-support.js';

describe.each(dialects)('trading partners (%s)', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(dialect);
    await h.org('acme');
    await h.org('globex');
  });
  afterAll(() => h.close());

  const partners = () => h.gateway.services.ediPartners;
  const refused = async (promise: Promise<unknown>, code: string, message: RegExp): Promise<void> => {
    const err = await promise.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(code);
    expect((err as AppError).message).toMatch(message);
  };

  it('needs the org\'s own interchange id with the first partner', async () => {
    await refused(partners().create({ org: 'acme', name: 'BuyerCo', isa: 'ZZ/BUYERCO' }), 'invalid_input', /--our-isa/);
  });

  it('creates, lists and shows partners (by id or name)', async () => {
    const created = await partners().create({
      org: 'acme',
      name: 'BuyerCo',
      isa: 'ZZ/BUYERCO',
      ourIsa: 'ZZ/TIREGATEWAY',
      gs: 'BUYERAPP',
      outboundUrl: 'https://buyer.example.com/edi',
      skuQualifiers: 'bp, vp',
    });
    expect(created).toMatchObject({
      org: 'acme',
      name: 'BuyerCo',
      isa: 'ZZ/BUYERCO',
      gs: 'BUYERAPP',
      outbound_url: 'https://buyer.example.com/edi',
      sku_qualifiers: ['BP', 'VP'],
      our_isa: 'ZZ/TIREGATEWAY',
    });
    expect(created.id).toMatch(/^tp_/);
    const second = await partners().create({ org: 'acme', name: 'DealerNet', isa: '01/123456789' });
    expect(second).toMatchObject({ sku_qualifiers: ['VP', 'VN', 'BP', 'SK', 'UP'], gs: null, outbound_url: null, our_isa: 'ZZ/TIREGATEWAY' });
    expect((await partners().list('acme')).map((p) => p.name)).toEqual(['BuyerCo', 'DealerNet']);
    expect(await partners().show('acme', created.id)).toEqual(created);
    expect(await partners().show('acme', 'DealerNet')).toEqual(second);
    await refused(partners().show('globex', created.id), 'not_found', /partner/);
  });

  it('refuses a second partner with the same interchange id or name in the org, not in another org', async () => {
    await refused(partners().create({ org: 'acme', name: 'Other', isa: 'ZZ/BUYERCO' }), 'already_exists', /ZZ\/BUYERCO/);
    await refused(partners().create({ org: 'acme', name: 'BuyerCo', isa: 'ZZ/OTHER' }), 'already_exists', /named BuyerCo/);
    const elsewhere = await partners().create({ org: 'globex', name: 'BuyerCo', isa: 'ZZ/BUYERCO', ourIsa: 'ZZ/GLOBEXGW' });
    expect(elsewhere.our_isa).toBe('ZZ/GLOBEXGW');
  });

  it.each([
    ['an --isa without a qualifier', { isa: 'BUYERCO' }, /--isa must be/],
    ['an --isa id over 15 characters', { isa: 'ZZ/ABCDEFGHIJKLMNOP' }, /--isa must be/],
    ['an --isa with a delimiter in it', { isa: 'ZZ/BUY*ER' }, /--isa must be/],
    ['an --our-isa with a lower-case qualifier', { isa: 'ZZ/NEW1', ourIsa: 'zz/ME' }, /--our-isa must be/],
    ['an --outbound-url that is not http(s)', { isa: 'ZZ/NEW2', outboundUrl: 'ftp://x.example/edi' }, /--outbound-url/],
    ['--sku-qualifiers with a bad code', { isa: 'ZZ/NEW3', skuQualifiers: 'VP,VENDOR' }, /--sku-qualifiers/],
    ['--sku-qualifiers naming a code twice', { isa: 'ZZ/NEW4', skuQualifiers: 'VP,vp' }, /twice/],
    ['an empty --name', { isa: 'ZZ/NEW5', name: ' ' }, /--name/],
  ])('refuses %s', async (_label, changes, message) => {
    await refused(partners().create({ org: 'acme', name: 'New', ...changes }), 'invalid_input', message);
  });

  it('reads a profile stored before the per-document requirements (require_856) and writes it back in the new shape', async () => {
    const db = h.gateway.database.db;
    const partner = await partners().show('acme', 'DealerNet');
    const old = JSON.stringify({ terms: { net_days: 30 }, require_856: ['TD5', 'MAN'] });
    await db.updateTable('edi_partners').set({ document_profile: old }).where('id', '=', partner.id).execute();
    const shown = await partners().show('acme', 'DealerNet');
    expect(shown.documents).toEqual({ terms: { net_days: 30 }, require: { '856': ['TD5', 'MAN'] } });
    expect(shown.validation).toBe('strict');
    const changed = await partners().setProfile('acme', 'DealerNet', { require810: 'CAD', validation: 'lenient' });
    expect(changed.documents).toEqual({ terms: { net_days: 30 }, require: { '856': ['TD5', 'MAN'], '810': ['CAD'] }, validation: 'lenient' });
    const row = await db.selectFrom('edi_partners').selectAll().where('id', '=', partner.id).executeTakeFirstOrThrow();
    expect(JSON.parse(row.document_profile)).not.toHaveProperty('require_856');
    // What the intake reads for the partner's interchanges.
    expect(inboundValidation(row)).toBe('lenient');
    expect(inboundValidation({ document_profile: '{}' })).toBe('strict');
  });

  it('--our-isa changes the org\'s id; interchanges addressed to the old one are then refused', async () => {
    await h.org('initech');
    const key = (await h.key('initech', 'edi:write')).key;
    await partners().create({ org: 'initech', name: 'BuyerCo', isa: 'ZZ/BUYERCO', ourIsa: 'ZZ/TIREGATEWAY' });
    await partners().create({ org: 'initech', name: 'Second', isa: 'ZZ/SECOND', ourIsa: 'ZZ/INITECH' });
    const res = await submit(h, key, readEdiFixture('po-4010-single.x12'));
    const error = expectError(res, 422, 'wrong_receiver');
    expect(error.error).toMatch(/not this organisation's interchange id ZZ\/INITECH/);
  });
});

describe('partners CLI', () => {
  const gateway = useInProcessCli('partners-cli');

  it('creates, lists and shows partners; refuses bad input with one line and exit code 1', async () => {
    expect((await gateway('orgs', 'create', 'acme')).code).toBe(0);
    const noId = await gateway('partners', 'create', '--org', 'acme', '--name', 'BuyerCo', '--isa', 'ZZ/BUYERCO');
    expect(noId).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: .*--our-isa/) as unknown });
    const created = await gateway(
      'partners', 'create', '--org', 'acme', '--name', 'BuyerCo', '--isa', 'ZZ/BUYERCO', '--our-isa', 'ZZ/TIREGATEWAY',
      '--outbound-url', 'https://buyer.example.com/edi', '--sku-qualifiers', 'VP,BP', '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    const partner = JSON.parse(created.stdout) as { id: string; isa: string; our_isa: string; sku_qualifiers: string[] };
    expect(partner).toMatchObject({ isa: 'ZZ/BUYERCO', our_isa: 'ZZ/TIREGATEWAY', sku_qualifiers: ['VP', 'BP'] });
    const human = await gateway('partners', 'list', '--org', 'acme');
    expect(human.stdout).toContain('BuyerCo');
    expect(human.stdout).toContain('ZZ/BUYERCO');
    const shown = await gateway('partners', 'show', 'BuyerCo', '--org', 'acme');
    expect(shown.stdout).toContain('sends to (ours): ZZ/TIREGATEWAY');
    expect(shown.stdout).toContain(partner.id);
    expect((await gateway('partners', 'create', '--org', 'acme', '--name', 'X', '--isa', 'nope')).code).toBe(1);
    expect((await gateway('partners', 'show', 'nobody', '--org', 'acme')).code).toBe(1);
  });
});
