import { expect } from 'vitest';
import type { ApiExample } from './types.js';

/** Feedback ingestion through `replay-export api`, the items from stdin (`--body -`); upserts by unique_id. */
export const EXAMPLES: readonly ApiExample[] = [
  {
    operation: 'feedback.ingest',
    args: ['--param', 'sourceId=all-operations', '--body', '-'],
    stdin: JSON.stringify([
      {
        unique_id: 'ticket-1',
        body: 'The export button does nothing',
        conversation_parts: [{ unique_id: 'p1', body: 'Which browser?' }],
      },
      { unique_id: 'ticket-2', body: 'Love it' },
    ]),
    check(result) {
      expect(result).toEqual({ ingested: 2, failed: 0, errors: [] });
    },
  },
  {
    // The same source again: a known item takes a new part without its body. (A partial failure exits 1:
    // test/cli/spec-clients.test.ts.)
    operation: 'feedback.ingest',
    args: ['--param', 'sourceId=all-operations', '--body', '-'],
    stdin: JSON.stringify([{ unique_id: 'ticket-1', conversation_parts: [{ unique_id: 'p2', body: 'Firefox' }] }]),
    check(result) {
      expect(result).toEqual({ ingested: 1, failed: 0, errors: [] });
    },
  },
];
