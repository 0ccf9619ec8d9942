import { managementExamples } from './experiments.js';
import type { ApiExample } from './types.js';

/** The 22 management operations for flags: the same calls as for experiments (experiments.ts), on flag ids. */
export const EXAMPLES: readonly ApiExample[] = managementExamples('flags');
