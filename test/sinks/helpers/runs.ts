import type { EventRun } from '../../../sinks/sink.js';

/** The events' JSON texts as one run: joined by `,`, each event's end recorded. */
export function runOf(events: readonly string[]): EventRun {
  const ends = new Int32Array(events.length);
  let o = 0;
  events.forEach((e, k) => {
    o += Buffer.byteLength(e);
    ends[k] = o;
    o += 1;
  });
  return { bytes: Buffer.from(events.join(',')), ends };
}
