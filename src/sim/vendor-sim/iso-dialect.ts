/** How an ISO 15143-3 feed writes its documents (filled in by the dialect switches). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- its switches are being added
export interface IsoDialect {}
