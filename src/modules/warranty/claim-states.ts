export const CLAIM_STATUSES = ['submitted', 'under_review', 'approved', 'denied', 'closed'] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

export const INITIAL_STATUS: ClaimStatus = 'submitted';

/** The claim lifecycle: denied may be appealed back to review; closed is final. */
const NEXT: Record<ClaimStatus, readonly ClaimStatus[]> = {
  submitted: ['under_review', 'approved', 'denied', 'closed'],
  under_review: ['approved', 'denied', 'closed'],
  approved: ['closed'],
  denied: ['under_review', 'closed'],
  closed: [],
};

export function allowedNext(from: ClaimStatus): readonly ClaimStatus[] {
  return NEXT[from];
}

export function canMove(from: ClaimStatus, to: ClaimStatus): boolean {
  return NEXT[from].includes(to);
}
