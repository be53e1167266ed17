import { ERROR_STATUS, type ErrorCode } from '../../../platform/core/errors.js';
import { echoText } from '../x12/index.js';
import type { DocumentView, EdiError, InterchangeEntry, StoredAnswer } from './messages.schemas.js';
import { AnswerBudget, anyOmitted, spend } from './intake/bounds.js';

// A body of several interchanges (ISA...IEA ISA...IEA): where each lies, and the body's answer from each one's.

/** Interchanges one body may carry: each is its own message and transaction, so a body of many ISAs stays bounded. */

/** The bytes of text[start, end) as received: one byte per character when the body was, else UTF-8 (it was valid UTF-8). */
export function bytesOf(raw: Buffer, text: string, start: number, end: number): Buffer {
  return Buffer.from(text.slice(start, end), raw.length === text.length ? 'latin1' : 'utf8');
}

/**
 * The body's answer from each interchange's, by the intake's status rule: 200 when at least one interchange was taken
 * (each entry says how it fared), else the one error code the refusals share (or 422).
 */
export async function combine(messageId: string, entries: readonly InterchangeEntry[]): Promise<StoredAnswer> {
  const taken = entries.flatMap((e) => (e.result === undefined ? [] : [e.result]));
  const first = entries[0]?.result?.partner ?? { id: '', name: '' };
  const refused = entries.filter((e) => e.error !== undefined);
  const whole = refused.length === 0 && taken.every((t) => t.status === undefined || t.status === 'accepted');
  // The top-level lists and the entries each get one answer's bounds, so the body's answer stays bounded however many interchanges.
  const { kept, omitted } = await spend({ acknowledgments: taken.flatMap((t) => t.acknowledgments), documents: taken.flatMap((t) => t.documents) }, new AnswerBudget());
  const together = {
    message_id: messageId,
    status: whole ? ('accepted' as const) : taken.length > 0 ? ('partial' as const) : ('rejected' as const),
    acknowledgments: kept.acknowledgments,
    documents: kept.documents,
    interchanges: await boundEntries(entries),
    ...(anyOmitted(omitted) ? { omitted: { message_id: messageId, ...omitted } } : {}),
  };
  if (taken.length > 0) return { kind: 'ok', body: { ...together, partner: first } };
  const codes = new Set(refused.map((e) => e.error?.code));
  const [only] = codes;
  const code: ErrorCode = codes.size === 1 && only !== undefined && only in ERROR_STATUS ? (only as ErrorCode) : 'interchange_rejected';
  const reasons = refused.slice(0, 3).map((e) => `interchange ${echoText(e.control_number ?? '?')}: ${e.error?.message ?? ''}`);
  const message = `${refused.length} of ${entries.length} interchanges in the body were refused (${reasons.join('; ')}${refused.length > 3 ? '; ...' : ''})`;
  return failure(code, message, together);
}

/** Each entry's lists cut to one budget shared by them all; an entry says what it left out (its own message has it all). */
async function boundEntries(entries: readonly InterchangeEntry[]): Promise<InterchangeEntry[]> {
  const budget = new AnswerBudget();
  const bounded: InterchangeEntry[] = [];
  // In order: the entries share one budget.
  for (const entry of entries) bounded.push(await boundEntry(entry, budget));
  return bounded;
}

/** One entry's lists cut to what the shared budget has left. */
async function boundEntry(entry: InterchangeEntry, budget: AnswerBudget): Promise<InterchangeEntry> {
  if (entry.result !== undefined) {
    const { kept, omitted } = await spend(entry.result, budget);
    const before = entry.result.omitted;
    const counts = before === undefined ? omitted : { documents: before.documents + omitted.documents, acknowledgments: before.acknowledgments + omitted.acknowledgments, findings: before.findings + omitted.findings };
    return { ...entry, result: { ...kept, ...(anyOmitted(counts) ? { omitted: { message_id: entry.message_id, ...counts } } : {}) } };
  }
  const details = entry.error?.details;
  if (entry.error === undefined || details === undefined) return entry;
  const { kept, omitted } = await spend(details as Record<string, unknown> & { documents?: DocumentView[]; errors?: EdiError[] }, budget);
  return { ...entry, error: { ...entry.error, details: anyOmitted(omitted) ? { ...kept, omitted: { message_id: entry.message_id, ...omitted } } : kept } };
}

export function entryOf(messageId: string, controlNumber: string | null, answer: StoredAnswer): InterchangeEntry {
  if (answer.kind === 'ok') return { message_id: messageId, control_number: controlNumber, status: 200, result: answer.body };
  const { code, message, details } = answer;
  // The intake's error answers always carry an object of details (message_id, errors, ...).
  const error = isRecord(details) ? { code, message, details } : { code, message };
  return { message_id: messageId, control_number: controlNumber, status: ERROR_STATUS[code], error };
}

/** An error answer, stored on the message and replayed to a resend. */
export function failure(code: ErrorCode, message: string, details: Record<string, unknown>): StoredAnswer {
  return { kind: 'error', code, message, details };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
