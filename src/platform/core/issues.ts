import type { z } from 'zod';
import { AppError, invalidInput } from './errors.js';

/** One schema issue as clients see it in `details`: the dotted path of the field and what is wrong with it. */
export interface IssueDetail {
  path: string;
  message: string;
}

/** zod's own wording for unknown keys (a schema's custom message is kept). */
const ZOD_UNKNOWN_KEY = /^Unrecognized keys?:/;

/** A schema's issues as details, each path under `pathPrefix`; an unknown key is one detail per key, at the key. */
export function issueDetails(issues: readonly z.core.$ZodIssue[], pathPrefix: readonly string[] = []): IssueDetail[] {
  const pathOf = (path: readonly PropertyKey[]) => [...pathPrefix, ...path.map(String)].join('.');
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: pathOf([...issue.path, key]), message: ZOD_UNKNOWN_KEY.test(issue.message) ? 'is unknown' : issue.message }))
      : [{ path: pathOf(issue.path), message: issue.message }],
  );
}

/** The one-line text of issue details: `<path>: <message>; ...` (a detail without a path is its message). */
export function issuesText(details: readonly IssueDetail[]): string {
  return details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ');
}

/** The first issue alone as `<path>: <message>`, for a one-line refusal (a configuration file, a stored setting). */
export function firstIssueText(issues: readonly z.core.$ZodIssue[]): string {
  return issuesText(issueDetails(issues.slice(0, 1)));
}

/** The 400 for a schema's issues: `invalid <what>: <path>: <message>; ...`, each as `{ path, message }` in details. */
export function invalidFromIssues(issues: readonly z.core.$ZodIssue[], what: string, pathPrefix: readonly string[] = []): AppError {
  const details = issueDetails(issues, pathPrefix);
  return invalidInput(`invalid ${what}: ${issuesText(details)}`, details);
}

/** The 400 for issues whose messages name their field themselves (a CLI flag): the messages alone, `; `-joined. */
export function invalidFromMessages(issues: readonly z.core.$ZodIssue[]): AppError {
  return invalidInput(issues.map((issue) => issue.message).join('; '));
}

/** The same with another error code (a 422 for EDI input the order rules refuse, say). */
export function errorFromIssues(code: AppError['code'], issues: readonly z.core.$ZodIssue[], what: string): AppError {
  const details = issueDetails(issues);
  return new AppError(code, `invalid ${what}: ${issuesText(details)}`, details);
}
