import { batchEvents, type EventBatch } from '../../decoders/index.js';
import { RedactionError } from './errors.js';
import type { RedactionPolicy } from './policy.js';
import { ReplayRedactor } from './redactor.js';

/**
 * One replay's decoded batches, redacted: each event through one `ReplayRedactor` (its per-replay node table), in
 * order; dropped events leave the batch, and a batch left empty is not yielded. Batches come out one Buffer per event.
 * An event that cannot be redacted throws `RedactionError` with its index in the replay (the replay fails).
 */
export async function* redactBatches(
  batches: AsyncIterable<EventBatch>,
  policy: RedactionPolicy,
): AsyncGenerator<EventBatch> {
  const redactor = new ReplayRedactor(policy);
  let index = 0;
  for await (const batch of batches) {
    const events: Buffer[] = [];
    for (const event of batchEvents(batch)) {
      let out: Buffer | undefined;
      try {
        out = redactor.redact(event);
      } catch (err) {
        throw new RedactionError(index, err);
      }
      index++;
      if (out !== undefined) events.push(out);
    }
    if (events.length > 0) yield { events };
  }
}
