import { expect } from 'vitest';
import type { ApiExample } from './types.js';

/** The sandbox holds every attribution event (it logs no users to match): `{code: 200, status: "held"}`. */
function held(result: unknown): void {
  expect(result).toEqual({ code: 200, status: 'held' });
}

/** Attribution through `replay-export api`: one event form-encoded (the default), one in the query. */
export const EXAMPLES: readonly ApiExample[] = [
  {
    operation: 'attribution.send',
    args: ['--body', '-'],
    stdin: JSON.stringify({
      event_type: '[Adjust] install',
      idfa: 'AEBE52E7-03EE-455A-B3C4-E57283966239',
      platform: 'ios',
      user_properties: { campaign: 'winter' },
    }),
    check: held,
  },
  {
    operation: 'attribution.send',
    args: ['--param', 'encoding=query', '--body', '-'],
    stdin: JSON.stringify({ event_type: 'install', adid: 'cdda802e-fb9c-47ad-9866-0794d394c912', platform: 'android' }),
    check: held,
  },
];
