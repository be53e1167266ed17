/** Where a fleet's vendor endpoints are and what the vendor asks of callers (filled in by the endpoint switches). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- its switches are being added
export interface FleetEndpoints {}
