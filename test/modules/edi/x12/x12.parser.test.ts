import { describe, expect, it } from 'vitest';
import { parseX12, readSegments } from '../../../../src/modules/edi/x12/x12.parser.js';
import type { Interchange, ParseResult, PartialInterchange, X12Issue } from '../../../../src/modules/edi/x12/x12.types.js';
import { inline850, ISA_4010, readFixture } from './x12.fixtures.js';

/** The fields of an issue a test pins down (message wording is free to change). */
function brief(issue: X12Issue): Partial<X12Issue> {
  const { level, code, position, segmentId, element, groupControl, setControl, value } = issue;
  return Object.fromEntries(
    Object.entries({ level, code, position, segmentId, element, groupControl, setControl, value }).filter(([, v]) => v !== undefined),
  );
}

function interchangeOf(result: ParseResult): Interchange {
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.issues)}`);
  return result.interchange;
}

function envelopeOf(result: ParseResult): PartialInterchange {
  if (result.ok || result.envelope === undefined) throw new Error('expected a rejected interchange with an envelope');
  return result.envelope;
}

/** Segment ids and interchange positions of every set, compact enough to compare whole. */
function layout(ic: PartialInterchange): string[] {
  return ic.groups.map(
    (g) => `${g.functionalId}/${g.controlNumber}: ${g.transactionSets.map((s) => `${s.id}/${s.controlNumber}[${s.segments.map((x) => `${x.id}@${x.position}`).join(' ')}]`).join(' ')}`,
  );
}

describe('parseX12 on valid interchanges', () => {
  it('reads a 004010 850 with newlines after terminators', () => {
    const result = parseX12(readFixture('850-4010-single.x12'));
    const ic = interchangeOf(result);
    expect(result.issues).toEqual([]);
    expect(ic.delimiters).toEqual({ element: '*', component: '>', repetition: null, segment: '~' });
    expect(ic).toMatchObject({
      senderQualifier: 'ZZ',
      senderId: 'BUYERCO',
      receiverQualifier: 'ZZ',
      receiverId: 'TIREGATEWAY',
      controlNumber: '000000101',
      version: '00401',
      usage: 'P',
      iea: ['1', '000000101'],
    });
    expect(ic.isa).toHaveLength(16);
    expect(ic.isa[5]).toBe('BUYERCO        ');
    expect(ic.isa[10]).toBe('U');
    const [group] = ic.groups;
    expect(group).toMatchObject({ functionalId: 'PO', controlNumber: '101', version: '004010', position: 2, ge: ['1', '101'] });
    expect(layout(ic)).toEqual([
      'PO/101: 850/0001[ST@3 BEG@4 REF@5 DTM@6 N9@7 MSG@8 N1@9 N3@10 N4@11 PO1@12 PID@13 PO1@14 CTT@15 SE@16]',
    ]);
    const set = group?.transactionSets[0];
    expect(set).toMatchObject({ id: '850', controlNumber: '0001', st: ['850', '0001'], se: ['14', '0001'], position: 3, segmentCount: 14 });
    expect(set?.segments[1]).toEqual({ id: 'BEG', elements: ['00', 'SA', 'PO-1001', '', '20240115'], position: 4 });
  });

  it('treats ISAAC and ISA inside data as data', () => {
    const ic = interchangeOf(parseX12(readFixture('850-4010-single.x12')));
    const segments = ic.groups[0]?.transactionSets[0]?.segments ?? [];
    expect(segments.find((s) => s.id === 'MSG')?.elements).toEqual(['ISAAC said ISA is not a segment here']);
    expect(segments.find((s) => s.id === 'N1')?.elements).toEqual(['ST', 'ISAAC TIRE AND WHEEL', '92', 'STORE42']);
  });

  it('reads a 005010 interchange with CRLF, a repetition separator and several sets', () => {
    const result = parseX12(readFixture('850-5010-multi.x12'));
    const ic = interchangeOf(result);
    expect(result.issues).toEqual([]);
    expect(ic.delimiters).toEqual({ element: '*', component: ':', repetition: '^', segment: '~' });
    expect(ic).toMatchObject({ version: '00501', usage: 'T', senderQualifier: '01', senderId: '123456789' });
    expect(layout(ic)).toEqual([
      'PO/202: 850/1001[ST@3 BEG@4 CUR@5 N1@6 PO1@7 CTT@8 SE@9] 850/1002[ST@10 BEG@11 PO1@12 PO1@13 CTT@14 SE@15] 850/1003[ST@16 BEG@17 PO1@18 SE@19]',
    ]);
    expect(ic.groups[0]?.transactionSets[0]?.st).toEqual(['850', '1001', '005010']);
    expect(ic.groups[0]?.version).toBe('005010');
  });

  it('reads several functional groups, including an inbound 997 group', () => {
    const ic = interchangeOf(parseX12(readFixture('850-multi-group.x12')));
    expect(layout(ic)).toEqual([
      'PO/31: 850/0001[ST@3 BEG@4 PO1@5 SE@6] 850/0002[ST@7 BEG@8 PO1@9 SE@10]',
      'PO/32: 850/0003[ST@13 BEG@14 PO1@15 SE@16]',
      'FA/33: 997/0004[ST@19 AK1@20 AK9@21 SE@22]',
    ]);
    expect(ic.iea).toEqual(['3', '000000303']);
  });

  it('accepts a newline as the segment terminator, with a stray CR before one of them', () => {
    const result = parseX12(readFixture('newline-terminator.x12'));
    const ic = interchangeOf(result);
    expect(result.issues).toEqual([]);
    expect(ic.delimiters.segment).toBe('\n');
    expect(ic.groups[0]?.gs).toEqual(['PO', 'BUYERCO', 'TIREGW', '20240115', '1030', '404', 'X', '004010']);
    expect(layout(ic)).toEqual(['PO/404: 850/0001[ST@3 BEG@4 PO1@5 CTT@6 SE@7]']);
  });

  it('reads unusual delimiters: ~ between elements, * between segments, : between components', () => {
    const result = parseX12(readFixture('unusual-delimiters.x12'));
    const ic = interchangeOf(result);
    expect(result.issues).toEqual([]);
    expect(ic.delimiters).toEqual({ element: '~', component: ':', repetition: null, segment: '*' });
    const segments = ic.groups[0]?.transactionSets[0]?.segments ?? [];
    expect(segments.map((s) => s.id)).toEqual(['ST', 'BEG', 'PO1', 'CTT', 'SE']);
    expect(segments[2]?.elements).toEqual(['1', '4', 'EA', '89.99', '', 'VP', 'TIRE:UNUSUAL']);
  });

  it('skips a BOM and leading whitespace before ISA', () => {
    const text = readFixture('850-4010-single.x12');
    expect(parseX12(`\uFEFF\r\n  \t${text}`).ok).toBe(true);
    expect(parseX12(`\u00EF\u00BB\u00BF${text}`).ok).toBe(true);
  });

  it('caches segments on the set and hands out fresh copies through readSegments', () => {
    const set = interchangeOf(parseX12(readFixture('850-4010-single.x12'))).groups[0]?.transactionSets[0];
    if (set === undefined) throw new Error('no set');
    expect(set.segments).toBe(set.segments);
    const fresh = readSegments(set);
    expect(fresh).not.toBe(set.segments);
    expect(fresh).toEqual(set.segments);
  });

  it('keeps the source text out of JSON', () => {
    const text = readFixture('850-5010-multi.x12');
    const json = JSON.stringify(interchangeOf(parseX12(text)));
    expect(json).not.toContain('WINTER-205-55R16');
  });
});

describe('parseX12 envelope findings', () => {
  it('reports a wrong SE01 with position, segment, element and value', () => {
    const result = parseX12(readFixture('se-count-wrong.x12'));
    expect(result.ok).toBe(true);
    expect(result.issues.map(brief)).toEqual([
      { level: 'set', code: 'AK502:4', position: 7, segmentId: 'SE', element: 1, groupControl: '606', setControl: '0001', value: '9' },
    ]);
  });

  it('reports wrong GE01 and IEA01 counts; the IEA one rejects the interchange but keeps the envelope', () => {
    const result = parseX12(readFixture('ge-iea-counts-wrong.x12'));
    expect(result.ok).toBe(false);
    expect(result.issues.map(brief)).toEqual([
      { level: 'group', code: 'AK905:5', position: 7, segmentId: 'GE', element: 1, groupControl: '707', value: '3' },
      { level: 'interchange', code: 'TA105:021', position: 8, segmentId: 'IEA', element: 1, value: '2' },
    ]);
    expect(layout(envelopeOf(result))).toEqual(['PO/707: 850/0001[ST@3 BEG@4 PO1@5 SE@6]']);
  });

  it('reports control numbers that differ between headers and trailers', () => {
    const result = parseX12(readFixture('control-mismatch.x12'));
    expect(result.ok).toBe(false);
    expect(result.issues.map(brief)).toEqual([
      { level: 'set', code: 'AK502:3', position: 6, segmentId: 'SE', element: 2, groupControl: '808', setControl: '0001', value: '0002' },
      { level: 'group', code: 'AK905:4', position: 7, segmentId: 'GE', element: 2, groupControl: '808', value: '809' },
      { level: 'interchange', code: 'TA105:001', position: 8, segmentId: 'IEA', element: 2, value: '000000809' },
    ]);
  });

  it('reports missing SE, GE and IEA of a truncated body and keeps what it read', () => {
    const result = parseX12(readFixture('truncated-body.x12'));
    expect(result.ok).toBe(false);
    expect(result.issues.map(brief)).toEqual([
      { level: 'set', code: 'AK502:2', position: 10, segmentId: 'SE', groupControl: '1111', setControl: '0002' },
      { level: 'group', code: 'AK905:3', position: 10, segmentId: 'GE', groupControl: '1111' },
      { level: 'interchange', code: 'TA105:023', position: 10, segmentId: 'IEA' },
    ]);
    const envelope = envelopeOf(result);
    expect(envelope.iea).toBeUndefined();
    expect(layout(envelope)).toEqual(['PO/1111: 850/0001[ST@3 BEG@4 PO1@5 SE@6] 850/0002[ST@7 BEG@8 PO1@9]']);
    const partial = envelope.groups[0]?.transactionSets[1];
    expect(partial?.se).toBeUndefined();
    expect(partial?.segments[2]?.elements).toEqual(['1', '1', 'EA', '9']);
  });

  it('reports a segment between transaction sets at group level', () => {
    const result = parseX12(readFixture('stray-segment.x12'));
    expect(result.ok).toBe(true);
    expect(result.issues.map(brief)).toEqual([
      { level: 'group', code: 'segment_outside_set', position: 7, segmentId: 'NTE', groupControl: '1212' },
    ]);
  });

  it('reports an ISA that is not 106 characters and still reads the rest', () => {
    const result = parseX12(readFixture('isa-length.x12'));
    expect(result.ok).toBe(false);
    expect(result.issues.map(brief)).toEqual([
      { level: 'interchange', code: 'TA105:022', position: 1, segmentId: 'ISA' },
      { level: 'interchange', code: 'TA105:022', position: 1, segmentId: 'ISA', element: 6, value: 'BUYERCO       ' },
    ]);
    expect(envelopeOf(result).senderId).toBe('BUYERCO');
  });

  it('reports ISA fields of the wrong width even when the total is 106', () => {
    const text = readFixture('850-4010-single.x12').replace('*BUYERCO        *ZZ*TIREGATEWAY    *', '*BUYERCO       *ZZ*TIREGATEWAY     *');
    expect(parseX12(text).issues.map(brief)).toEqual([
      { level: 'interchange', code: 'TA105:022', position: 1, segmentId: 'ISA', element: 6, value: 'BUYERCO       ' },
      { level: 'interchange', code: 'TA105:022', position: 1, segmentId: 'ISA', element: 8, value: 'TIREGATEWAY     ' },
    ]);
  });

  it('reports the first stray segments of a group one by one and counts the rest', () => {
    const strays = Array.from({ length: 25 }, (_, i) => `NTE*GEN*${i}~`).join('');
    const text = readFixture('stray-segment.x12').replace('NTE*GEN*between sets~', strays);
    const issues = parseX12(text).issues;
    expect(issues).toHaveLength(21);
    expect(issues.every((i) => i.level === 'group' && i.code === 'segment_outside_set')).toBe(true);
    expect(issues.at(-1)?.message).toBe('5 more segments outside transaction sets');
  });

  it('rejects a truncated ISA without an envelope', () => {
    const result = parseX12(readFixture('truncated-isa.x12'));
    expect(result).toEqual({ ok: false, issues: [expect.objectContaining({ code: 'TA105:023', level: 'interchange', segmentId: 'ISA' })] });
  });

  it.each([
    ['JSON', '{"order": 1}'],
    ['empty body', ''],
    ['whitespace', ' \r\n '],
    ['a word starting with ISA', 'ISAAC NEWTON ordered four tires'],
    ['ISA followed by a space', 'ISA 00 something'],
  ])('says not_x12 for %s', (_name, text) => {
    const result = parseX12(text);
    expect(result.ok).toBe(false);
    expect(result.issues.map((i) => i.code)).toEqual(['not_x12']);
    expect(result).not.toHaveProperty('envelope');
  });

  it('reports an SE missing before the next ST', () => {
    const text = inline850(['BEG*00*SA*PO-1**20240115', 'PO1*1*1*EA*1**VP*A', 'ST*850*0002', 'BEG*00*SA*PO-2**20240115'], {
      se: 'SE*3*0002~',
      ge: 'GE*2*101~',
    });
    const result = parseX12(text);
    expect(result.issues.map(brief)).toEqual([
      { level: 'set', code: 'AK502:2', position: 6, segmentId: 'SE', groupControl: '101', setControl: '0001' },
    ]);
    expect(layout(interchangeOf(result))).toEqual(['PO/101: 850/0001[ST@3 BEG@4 PO1@5] 850/0002[ST@6 BEG@7 SE@8]']);
  });

  it('reports duplicate ST02 in a group and an unsupported GS08', () => {
    const text = [
      ISA_4010,
      'GS*PO*BUYERCO*TIREGW*20240115*1030*101*X*X12~',
      'ST*850*0001~BEG*00*SA*A**20240115~SE*3*0001~',
      'ST*850*0001~BEG*00*SA*B**20240115~SE*3*0001~',
      'GE*2*101~IEA*1*000000101~',
    ].join('');
    expect(parseX12(text).issues.map(brief)).toEqual([
      { level: 'group', code: 'AK905:2', position: 2, segmentId: 'GS', element: 8, groupControl: '101', value: 'X12' },
      { level: 'set', code: 'AK502:23', position: 6, segmentId: 'ST', element: 2, groupControl: '101', setControl: '0001', value: '0001' },
    ]);
  });

  it('reports an ISA12 version past 00801 and content after the IEA', () => {
    const text = `${inline850(['BEG*00*SA*A**20240115']).replace('*00401*', '*00900*')}\nJUNK*00*`;
    const result = parseX12(text);
    expect(result.ok).toBe(false);
    expect(result.next).toBeUndefined();
    expect(result.issues.map((i) => [i.code, i.element, i.position])).toEqual([
      ['TA105:003', 12, 1],
      ['TA105:024', undefined, 8],
    ]);
  });

  it('says where the next interchange starts, after the IEA or in place of a missing one', () => {
    const one = inline850(['BEG*00*SA*A**20240115']);
    const two = `${one}\r\n  ${one.replace('*U*00401*', '*^*00501*')}`;
    const first = parseX12(two);
    expect(first.ok).toBe(true);
    expect(first.next).toBe(one.length + 4);
    const second = parseX12(two, first.next);
    expect(second.ok && second.interchange.version).toBe('00501');
    expect(second.next).toBeUndefined();

    const cut = `${one.replace(/IEA\*[^~]*~$/, '')}${one}`;
    const broken = parseX12(cut);
    expect(broken.ok).toBe(false);
    expect(broken.issues.map((i) => i.code)).toEqual(['TA105:023']);
    expect(broken.next).toBe(cut.length - one.length);
    expect(parseX12(cut, broken.next).ok).toBe(true);
  });

  it('reports a transaction set outside any functional group', () => {
    const text = [ISA_4010, 'ST*850*0001~BEG*00*SA*A**20240115~SE*3*0001~', 'IEA*0*000000101~'].join('\n');
    const result = parseX12(text);
    expect(result.ok).toBe(false);
    expect(result.issues.map(brief)).toEqual([{ level: 'interchange', code: 'TA105:024', position: 2, segmentId: 'ST' }]);
  });

  it('accepts trailing whitespace and a missing final terminator', () => {
    expect(parseX12(`${inline850(['BEG*00*SA*A**20240115'])}\r\n\r\n  `).ok).toBe(true);
    expect(parseX12(inline850(['BEG*00*SA*A**20240115']).replace(/~$/, '')).ok).toBe(true);
  });
});
