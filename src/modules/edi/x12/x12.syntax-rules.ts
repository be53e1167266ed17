import type { SyntaxRule } from './x12.schema.js';
import { X12_CODES } from './x12.types.js';

/** One broken relational condition, pointing at the element the partner has to fix. */
export interface SyntaxProblem {
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
  const problems: SyntaxProblem[] = [];
  const missing = (position: number, message: string): void => {
    problems.push({ element: position, code: X12_CODES.conditionalElementMissing, message });
  };
  for (const rule of rules) {
    const [first = 0, ...others] = rule.elements;
    const all = rule.elements.map((p) => name(segmentId, p)).join(', ');
    const given = rule.elements.filter(present);
    switch (rule.kind) {
      case 'P':
        if (given.length > 0 && given.length < rule.elements.length) {
          const partner = name(segmentId, given[0] ?? first);
          for (const p of rule.elements) if (!present(p)) missing(p, `${name(segmentId, p)} is required with ${partner} (paired: ${all})`);
        }
        break;
      case 'R':
        if (given.length === 0) missing(first, `at least one of ${all} is required`);
        break;
      case 'E':
        // The second element used is the one that violates the exclusion.
        if (given.length > 1) {
          problems.push({ element: given[1] ?? first, code: X12_CODES.exclusionViolated, message: `only one of ${all} may be used` });
        }
        break;
      case 'C':
        if (present(first)) for (const p of others) if (!present(p)) missing(p, `${name(segmentId, p)} is required when ${name(segmentId, first)} is present`);
        break;
      case 'L':
        if (present(first) && !others.some(present)) {
          missing(others[0] ?? first, `one of ${others.map((p) => name(segmentId, p)).join(', ')} is required when ${name(segmentId, first)} is present`);
        }
        break;
    }
  }
  return problems;
}
