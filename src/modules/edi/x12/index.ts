// The X12 library's public surface: the rest of the gateway reads, checks, acknowledges and writes X12 through these
// names only (eslint keeps it so); the files behind them are free to change.

// Parse: the envelope in one pass, set contents left in the source text until asked for.
export { parseX12, readSegments } from './x12.parser.js';
// Validate: segment tables per version, element types, relational rules, code lists.
export { checkInterchange, validateInterchange, validateTransactionSet, type TableUse } from './x12.validate.js';
// Acknowledge: 997 per functional group, TA1 per interchange.
export {
  ackControlNumbersNeeded,
  ackControlNumbersNeededPaced,
  assess997Async,
  build997,
  write997Interchange,
  type Ack997,
  type AckInterchange,
  type AckInterchangeOptions,
  type AssessOptions,
  type GroupAck,
  type GroupVerdict,
  type SetVerdict,
} from './x12.ack997.js';
export { ackCode, ackCodes, type AckElement } from './x12.ack-codes.js';
export { ELEMENTS_READ, LENIENT_TOLERATES, tolerated, type ValidationLevel } from './x12.tolerance.js';
export { type Findings, indexFindings } from './x12.findings.js';
export { buildTa1, TA1_NOTES, type Ta1Code, ta1Verdict } from './x12.ta1.js';
// Write: interchanges from element arrays, with delimiters that do not occur in the data.
export {
  buildInterchange,
  DEFAULT_DELIMITERS_00401,
  DEFAULT_DELIMITERS_00501,
  writeX12,
  type BuildGroup,
  type BuildInterchangeInput,
  type BuildSet,
  type InterchangeInput,
  type Party,
  type X12Value,
} from './x12.writer.js';
// Echo: what may be quoted back into X12 or JSON, capped and cleaned.
export { chooseDelimiters, EchoedChars, echoText, JSON_ECHO_MAX, scrub } from './x12.delimiters.js';
export {
  X12_CODES,
  type Delimiters,
  type FunctionalGroup,
  type Interchange,
  type ParseResult,
  type PartialInterchange,
  type Segment,
  type TransactionSet,
  type X12Issue,
} from './x12.types.js';
// Examine in a worker thread, rebuild on the request thread.
export { type Examined, type ExaminedBody, type ExaminedInterchange, examineBody, hydrate } from './x12.wire.js';
