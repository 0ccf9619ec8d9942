/** Redaction at export: policies (docs/REDACTION.md), and the per-replay redactor for your own event streams. */
export { RedactionError, RedactionPolicyError } from './errors.js';
export { BUILTIN_PATTERNS, maskAll, PatternSet, type PatternSpec } from './patterns.js';
export {
  compileRedactionPolicy,
  loadRedactionPolicy,
  REDACTION_VERSION,
  type RedactionPolicy,
  type RedactionPolicySpec,
} from './policy.js';
export { ReplayRedactor } from './redactor.js';
export { redactBatches } from './stream.js';
