import { expect } from 'vitest';
import type { ApiExample } from './types.js';

/** Group identify through `replay-export api`: the status and the body as received (docs/SANDBOX.md shows it). */
export const EXAMPLES: readonly ApiExample[] = [
  {
    operation: 'group-identify.identify',
    args: ['--body', '-'],
    stdin: JSON.stringify([
      { group_type: 'org', group_value: 'acme', group_properties: { plan: 'enterprise', seats: 40 } },
      { group_type: 'org', group_value: 'globex', group_properties: { plan: 'free' } },
    ]),
    check: (result) => expect(result).toEqual({ code: 200, identified: 2 }),
  },
];
