/** Readings as real fleets send them (filled in by the reading switches). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- its switches are being added
export interface ReadingQuirks {}
