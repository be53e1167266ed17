import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { purchaseOrderAck } from '../../../../src/modules/edi/messages/outbound-sets.js';
import { wrapSet } from '../../../../src/modules/edi/messages/outbound.js';
import { scrub } from '../../../../src/modules/edi/x12/index.js';
import type { OurInterchangeProfile as ProfileRow, TradingPartner as PartnerRow } from '../../../../src/modules/edi/partners/partners.service.js';
import { readBack } from '../edi-support.js';

const profile: ProfileRow = { org_id: 'org_1', isa_qualifier: 'ZZ', isa_id: 'TIREGATEWAY', last_control_number: 0, created_at: '', updated_at: '' };
const partner: PartnerRow = {
  id: 'tp_1', org_id: 'org_1', name: 'BuyerCo', isa_qualifier: 'ZZ', isa_id: 'BUYERCO', gs_id: null, outbound_url: null, sku_qualifiers: 'VP', document_profile: '{}', created_at: '',
};

// Printable ASCII: every default delimiter and every spare the writer could swap in.
const text = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 12 });

describe('outbound documents', () => {
  it('parse back cleanly whatever characters the echoed PO numbers and product ids carry', () => {
    fc.assert(
      fc.property(text, fc.array(text, { minLength: 1, maxLength: 4 }), fc.constantFrom('004010' as const, '005010' as const), fc.integer({ min: 1, max: 999_999_999 }), (po, ids, version, controlNumber) => {
        const lines = ids.map((id, i) => ({ line: { lineId: String(i + 1), qualifier: 'VP', productId: id, quantity: '2', unit: 'EA', unitPrice: '9.99' }, accepted: i % 2 === 0 }));
        const x12 = wrapSet('855', purchaseOrderAck({ type: 'AC', poNumber: po, poDate: '20260601', date: '20260602', lines }), { profile, partner, version, controlNumber, date: new Date('2026-06-01T12:00:00Z') });
        const { interchange, body } = readBack(x12);
        const d = interchange.delimiters;
        expect(interchange.controlNumber).toBe(String(controlNumber).padStart(9, '0'));
        expect(interchange.groups[0]?.transactionSets[0]?.segments[1]?.elements[2]).toBe(scrub(po, d));
        expect(body).toHaveLength(2 + ids.length * 2);
        expect(body.filter((s) => s.startsWith('ACK*IR')).length).toBe(Math.floor(ids.length / 2));
      }),
      { numRuns: 300 },
    );
  });
});
