/** Something with the rrweb event timestamp (ms since the epoch). */
export interface Timed {
  timestamp: number;
}

/**
 * Splits `events` into `parts` consecutive non-empty chunks of about equal size. `shift` (0 ≤ shift < 1)
 * moves every inner boundary by that fraction of a chunk, so two calls with different shifts cut at
 * different places. A boundary never lands where the next chunk would start earlier than the previous
 * one (file keys carry the first event's time, and key order must be time order).
 */
export function splitEvents<T extends Timed>(events: readonly T[], parts: number, shift: number): T[][] {
  if (events.length < parts) throw new Error(`cannot split ${events.length} events into ${parts} chunks`);
  const size = events.length / parts;
  const cuts: number[] = [];
  let prev = 0;
  for (let i = 1; i < parts; i++) {
    let cut = Math.max(prev + 1, Math.floor((i + shift) * size));
    while (cut < events.length && events[cut]!.timestamp < events[prev]!.timestamp) cut++;
    if (cut >= events.length) break;
    cuts.push(cut);
    prev = cut;
  }
  const chunks: T[][] = [];
  let start = 0;
  for (const cut of [...cuts, events.length]) {
    chunks.push(events.slice(start, cut));
    start = cut;
  }
  return chunks;
}

/** The file key for a chunk: `<13-digit ms of its first event>-<4-digit sequence>.json.gz`. */
export function chunkKey(firstTimestamp: number, seq: number): string {
  if (!Number.isSafeInteger(firstTimestamp) || firstTimestamp < 0 || firstTimestamp > 9_999_999_999_999) {
    throw new Error(`timestamp ${firstTimestamp} does not fit a 13-digit key`);
  }
  return `${String(firstTimestamp).padStart(13, '0')}-${String(seq).padStart(4, '0')}.json.gz`;
}
