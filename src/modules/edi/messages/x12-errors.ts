import type { EdiError } from './messages.schemas.js';
import { echoText, JSON_ECHO_MAX, type X12Issue } from '../x12/index.js';

/** A message quotes at most a few echoed values, each already cut; this bounds one that quotes more. */
const MAX_MESSAGE = 4 * JSON_ECHO_MAX;

/** An X12 finding on the wire: where (segment position, segment id, element) and what; every echoed text is cut and cleaned. */
export function toEdiError(issue: X12Issue): EdiError {
  return {
    code: echoText(issue.code),
    message: echoText(issue.message, MAX_MESSAGE),
    level: issue.level,
    ...(issue.position === undefined ? {} : { position: issue.position }),
    ...(issue.segmentId === undefined ? {} : { segment_id: echoText(issue.segmentId) }),
    ...(issue.element === undefined ? {} : { element: issue.element }),
    ...(issue.groupControl === undefined ? {} : { group_control: echoText(issue.groupControl) }),
    ...(issue.setControl === undefined ? {} : { set_control: echoText(issue.setControl) }),
    ...(issue.value === undefined ? {} : { value: echoText(issue.value) }),
  };
}

/** "SE01 at segment 7: SE01 says 9 segments; the set has 5" */
export function describeError(e: EdiError): string {
  const element = e.element === undefined ? '' : String(e.element).padStart(2, '0');
  const where = e.segment_id === undefined ? '' : `${e.segment_id}${element}`;
  const at = e.position === undefined ? '' : ` at segment ${e.position}`;
  return where === '' && at === '' ? e.message : `${where}${at}: ${e.message}`;
}

/** One line naming the first few findings, for the error message REST and MCP both show. */
export function summarize(total: number, errors: readonly EdiError[], what: string): string {
  const shown = errors.slice(0, 3).map(describeError).join('; ');
  const more = total > 3 ? `; and ${total - 3} more` : '';
  return `${what} has ${total} X12 error${total === 1 ? '' : 's'}: ${shown}${more}`;
}

/** Findings listed in an answer's `errors` (every document still lists its own): a body of 40,000 bad sets stays readable. */
const MAX_LISTED_ERRORS = 1000;

/** The first MAX_LISTED_ERRORS findings, then one entry saying how many more there are. */
export function listErrors(issues: readonly X12Issue[]): EdiError[] {
  const listed = issues.slice(0, MAX_LISTED_ERRORS).map(toEdiError);
  const more = issues.length - listed.length;
  if (more > 0) listed.push({ code: 'more_errors', message: `${more} more findings are not listed here; each document lists its own` });
  return listed;
}
