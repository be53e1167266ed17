/** The partner profile's fixed lists, apart from the zod schemas so the CLI's help can name them without loading those. */

/**
 * Segments a partner's guide can make mandatory, per document; a document that would go out without one is not sent
 * (the status change that owes it is refused). `N1-ST` is N1 with N101 ST, `REF-IA` REF with REF01 IA, `ACK-068` an
 * ACK04 068 schedule date on every accepted line, `DTM-011` DTM with DTM01 011.
 */
export const REQUIRABLE = {
  '855': ['N1-ST', 'N1-BT', 'N1-BY', 'REF-IA', 'ACK-068'],
  '856': ['N1-SF', 'N1-ST', 'TD1', 'TD5', 'REF-BM', 'REF-CN', 'REF-IA', 'MAN', 'PO4'],
  '810': ['N1-BT', 'N1-RE', 'N1-ST', 'REF-IA', 'ITD', 'DTM-011', 'SAC', 'CAD'],
} as const;

export const VALIDATION_LEVELS = ['strict', 'lenient'] as const;

/** PO1 product id qualifiers tried for the SKU when a partner names none: vendor part, vendor item, buyer part, SKU, UPC. */
export const DEFAULT_SKU_QUALIFIERS = ['VP', 'VN', 'BP', 'SK', 'UP'] as const;
