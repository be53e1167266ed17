import { pace } from '../../../../platform/core/pacer.js';
import type { DocumentView, EdiError, SubmitResult } from '../messages.schemas.js';
import { toEdiError } from '../x12-errors.js';
import type { X12Issue } from '../../x12/index.js';

// An answer's size does not grow with the body: every list in it is capped, and what was left out is counted.

/** Findings in one answer, over `errors` and every document's own `errors` together. */
export const MAX_ANSWER_FINDINGS = 1000;
/** Entries of `documents` and of `acknowledgments` in one answer. */
export const MAX_ANSWER_ENTRIES = 1000;

type Omitted = NonNullable<SubmitResult['omitted']>;
type Counts = Omit<Omitted, 'message_id'>;

/** What is left to list: one budget for an answer, or one shared by every entry of a several-interchange answer. */
export class AnswerBudget {
  documents = MAX_ANSWER_ENTRIES;
  acknowledgments = MAX_ANSWER_ENTRIES;
  findings = MAX_ANSWER_FINDINGS;
}

interface Lists {
  documents?: DocumentView[];
  acknowledgments?: unknown[];
  errors?: EdiError[];
}

function take<T>(list: readonly T[], left: number): T[] {
  return list.length <= left ? [...list] : list.slice(0, Math.max(0, left));
}

/** `lists` cut to what the budget has left (errors first, then each document with its own), spending it; paced (40,000 documents). */
export async function spend<T extends Lists>(lists: T, budget: AnswerBudget): Promise<{ kept: T; omitted: Counts }> {
  const omitted: Counts = { documents: 0, acknowledgments: 0, findings: 0 };
  const kept: T = { ...lists };
  if (lists.errors !== undefined) {
    const errors = take(lists.errors, budget.findings);
    budget.findings -= errors.length;
    omitted.findings += lists.errors.length - errors.length;
    kept.errors = errors;
  }
  if (lists.documents !== undefined) {
    const documents: DocumentView[] = [];
    for (const document of lists.documents) {
      await pace();
      const own = document.errors ?? [];
      if (budget.documents === 0) {
        omitted.documents++;
        omitted.findings += own.length;
        continue;
      }
      budget.documents--;
      const errors = take(own, budget.findings);
      budget.findings -= errors.length;
      omitted.findings += own.length - errors.length;
      const { errors: _all, ...rest } = document;
      documents.push(errors.length === 0 ? rest : { ...rest, errors });
    }
    kept.documents = documents;
  }
  if (lists.acknowledgments !== undefined) {
    const acknowledgments = take(lists.acknowledgments, budget.acknowledgments);
    budget.acknowledgments -= acknowledgments.length;
    omitted.acknowledgments += lists.acknowledgments.length - acknowledgments.length;
    kept.acknowledgments = acknowledgments;
  }
  return { kept, omitted };
}

export function anyOmitted(counts: Counts): boolean {
  return counts.documents + counts.acknowledgments + counts.findings > 0;
}

/** The answer with its lists capped; `omitted` counts what is left out and names the stored message that has it all. */
export async function bounded(result: SubmitResult, issues: readonly X12Issue[]): Promise<SubmitResult> {
  // Only the findings that can be listed are turned into JSON; the rest are counted.
  const listed = issues.slice(0, MAX_ANSWER_FINDINGS).map(toEdiError);
  const { kept, omitted } = await spend({ ...result, errors: listed }, new AnswerBudget());
  omitted.findings += issues.length - listed.length;
  const { errors, ...rest } = kept;
  return { ...rest, ...(errors === undefined || errors.length === 0 ? {} : { errors }), ...(anyOmitted(omitted) ? { omitted: { message_id: result.message_id, ...omitted } } : {}) };
}
