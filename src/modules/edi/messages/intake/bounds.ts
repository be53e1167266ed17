import type { DocumentView, SubmitResult } from '../messages.schemas.js';
import { toEdiError } from '../x12-errors.js';
import type { X12Issue } from '../../x12/index.js';

// An answer's size does not grow with the body: every list in it is capped, and what was left out is counted.

/** Findings in one answer, over `errors` and every document's own `errors` together. */
export const MAX_ANSWER_FINDINGS = 1000;
/** Entries of `documents` and of `acknowledgments` in one answer. */
export const MAX_ANSWER_ENTRIES = 1000;

type Omitted = NonNullable<SubmitResult['omitted']>;

/** The answer with its lists capped; `omitted` counts what is left out and names the stored message that has it all. */
export function bounded(result: SubmitResult, issues: readonly X12Issue[]): SubmitResult {
  let budget = MAX_ANSWER_FINDINGS;
  const errors = issues.slice(0, budget).map(toEdiError);
  budget -= errors.length;
  let findings = issues.length - errors.length;
  const documents: DocumentView[] = [];
  for (const document of result.documents.slice(0, MAX_ANSWER_ENTRIES)) {
    const own = document.errors ?? [];
    if (own.length <= budget) {
      documents.push(document);
      budget -= own.length;
      continue;
    }
    findings += own.length - budget;
    const { errors: _all, ...rest } = document;
    documents.push(budget === 0 ? rest : { ...rest, errors: own.slice(0, budget) });
    budget = 0;
  }
  for (const document of result.documents.slice(MAX_ANSWER_ENTRIES)) findings += document.errors?.length ?? 0;
  const omitted: Omitted = {
    message_id: result.message_id,
    documents: result.documents.length - documents.length,
    acknowledgments: Math.max(0, result.acknowledgments.length - MAX_ANSWER_ENTRIES),
    findings,
  };
  const cut = omitted.documents + omitted.acknowledgments + omitted.findings > 0;
  return {
    ...result,
    documents,
    acknowledgments: result.acknowledgments.slice(0, MAX_ANSWER_ENTRIES),
    ...(errors.length === 0 ? {} : { errors }),
    ...(cut ? { omitted } : {}),
  };
}
