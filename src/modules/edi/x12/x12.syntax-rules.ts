import type { SyntaxRule } from './x12.schema.js';
import { X12_CODES } from './x12.types.js';

/** One broken relational condition, pointing at the element the partner has to fix. */
interface SyntaxProblem {
  /** 1-based element position (AK401). */
  element: number;
  /** 'AK403:2' (conditional required element missing) or 'AK403:10' (exclusion condition violated). */
  code: string;
  message: string;
}

const name = (segmentId: string, position: number): string => `${segmentId}${String(position).padStart(2, '0')}`;

/** Checks the syntax notes of one segment; `values[i]` is element i + 1 and '' counts as absent. */
export function checkSyntaxRules(segmentId: string, values: readonly string[], rules: readonly SyntaxRule[]): SyntaxProblem[] {
  const present = (position: number): boolean => (values[position - 1] ?? '') !== '';
  let problems: SyntaxProblem[] | undefined;
  for (const rule of rules) {
    // Most segments keep every rule: count first, and write messages only for a broken one (PO1 has a dozen rules).
    let given = 0;
    for (const p of rule.elements) if (present(p)) given++;
    const broken =
      rule.kind === 'P' ? given > 0 && given < rule.elements.length
      : rule.kind === 'R' ? given === 0
      : rule.kind === 'E' ? given > 1
      : rule.kind === 'C' ? present(rule.elements[0] ?? 0) && given < rule.elements.length
      : present(rule.elements[0] ?? 0) && given === 1;
    if (broken) (problems ??= []).push(...describe(segmentId, rule, present));
  }
  return problems ?? [];
}

/** The problems of a rule found broken, each at the element to fix. */
function describe(segmentId: string, rule: SyntaxRule, present: (position: number) => boolean): SyntaxProblem[] {
  const [first = 0, ...others] = rule.elements;
  const all = rule.elements.map((p) => name(segmentId, p)).join(', ');
  const given = rule.elements.filter(present);
  const missing = (position: number, message: string): SyntaxProblem => ({ element: position, code: X12_CODES.conditionalElementMissing, message });
  switch (rule.kind) {
    case 'P': {
      const partner = name(segmentId, given[0] ?? first);
      return rule.elements.filter((p) => !present(p)).map((p) => missing(p, `${name(segmentId, p)} is required with ${partner} (paired: ${all})`));
    }
    case 'R':
      return [missing(first, `at least one of ${all} is required`)];
    case 'E':
      // The second element used is the one that violates the exclusion.
      return [{ element: given[1] ?? first, code: X12_CODES.exclusionViolated, message: `only one of ${all} may be used` }];
    case 'C':
      return others.filter((p) => !present(p)).map((p) => missing(p, `${name(segmentId, p)} is required when ${name(segmentId, first)} is present`));
    case 'L':
      return [missing(others[0] ?? first, `one of ${others.map((p) => name(segmentId, p)).join(', ')} is required when ${name(segmentId, first)} is present`)];
  }
}
