import { peekEventFields, peekEventTimestamp, peekEventTimestampIn, type EventBatch } from '../../decoders/index.js';
import { trailingTimestamp } from '../../decoders/trailing-timestamp.js';
import type { ManifestChecks, ManifestFacts } from '../../sinks/sink.js';
import { ReplayFacts } from './facts.js';

const EVENT_TYPE_FULL_SNAPSHOT = 2;
const EVENT_TYPE_META = 4;

/**
 * The timestamp of the event [from, end) of `bytes`, NaN when it has none (the decoder had no reading for it): the
 * trailing-timestamp rule, else an exact peek.
 */
function timestampIn(bytes: Buffer, from: number, end: number): number {
  const t = trailingTimestamp(bytes, from, end);
  return !Number.isNaN(t) ? t : (peekEventTimestampIn(bytes, from, end) ?? NaN);
}

/**
 * The running timing values, in a Float64Array: [last finite timestamp (NaN before the first), max gap, backwards,
 * first finite timestamp].
 */
const LAST = 0;
const MAX_GAP = 1;
const BACKWARDS = 2;
const FIRST = 3;

/**
 * Takes the decoder's timestamp readings `stamps[k…n)` into `times` as far as they go (up to the first one that is
 * NaN or not finite); returns where it stopped. Its own small function over typed arrays and numbers only: V8 keeps
 * it optimized and its values unboxed (in the calling method they were boxed, one heap number per event: 11 MB of
 * garbage per 200 MB replay).
 */
function timeRun(times: Float64Array, stamps: Float64Array, k: number, n: number): number {
  let last = times[LAST]!;
  let maxGap = times[MAX_GAP]!;
  let backwards = times[BACKWARDS]!;
  for (; k < n; k++) {
    const t = stamps[k]!;
    if (t - t !== 0) break;
    if (!Number.isNaN(last)) {
      const gap = t - last;
      if (gap < 0) backwards = 1;
      else if (gap > maxGap) maxGap = gap;
    } else times[FIRST] = t;
    last = t;
  }
  times[LAST] = last;
  times[MAX_GAP] = maxGap;
  times[BACKWARDS] = backwards;
  return k;
}

/**
 * Running checks over a replay's events as they stream past (a peek at `type` and `timestamp`, no full parse):
 * a player needs a Meta and a FullSnapshot; gaps and timestamps going backwards hint at lost or misordered data.
 */
export class ReplayChecks {
  private hasMeta = false;
  private hasFullSnapshot = false;
  private readonly times = Float64Array.of(NaN, 0, 0, NaN);
  /** What happened in the replay (facts.ts), read in the same pass. */
  private readonly facts = new ReplayFacts();
  /** One timestamp read here rather than by the decoder, handed to `timeRun` like the decoder's. */
  private readonly one = new Float64Array(1);
  count = 0;

  observe(events: readonly Buffer[]): void {
    for (const event of events) {
      this.facts.observeEvent(event, 0, event.length, NaN);
      this.observeOne(event);
    }
  }

  /** The same as `observe` for a decoded batch; events held in runs are read in place. */
  observeBatch(batch: EventBatch): void {
    if (batch.events !== undefined) {
      this.observe(batch.events);
      return;
    }
    const times = this.times;
    for (const run of batch.runs) {
      const { bytes, ends, timestamps } = run;
      const n = ends.length;
      this.facts.observeRun(bytes, ends, timestamps, 0);
      let from = 0;
      let k = 0;
      // Until the meta and full snapshot events are seen, each event's type is read too.
      for (; k < n && !(this.hasMeta && this.hasFullSnapshot); k++) {
        this.observeOne(bytes.subarray(from, ends[k]!));
        from = ends[k]! + 1;
      }
      // Then only timestamps (the decoder's readings while it has them; an event without one is read here).
      this.count += n - k;
      while (k < n) {
        if (timestamps !== undefined) {
          k = timeRun(times, timestamps, k, n);
          if (k === n) break;
        }
        this.timeOne(timestampIn(bytes, k === 0 ? 0 : ends[k - 1]! + 1, ends[k]!));
        k++;
      }
    }
  }

  private observeOne(event: Buffer): void {
    this.count++;
    let timestamp: number | undefined;
    if (this.hasMeta && this.hasFullSnapshot) {
      // Both types seen: only the timestamp matters now, and its usual suffix is read in constant time.
      timestamp = peekEventTimestamp(event);
    } else {
      const fields = peekEventFields(event);
      timestamp = fields.timestamp;
      if (fields.type === EVENT_TYPE_META) {
        this.hasMeta = true;
      } else if (fields.type === EVENT_TYPE_FULL_SNAPSHOT) this.hasFullSnapshot = true;
    }
    if (typeof timestamp === 'number') this.timeOne(timestamp);
  }

  /** Takes one timestamp into the running values (not finite: ignored, as `timeRun` does). */
  private timeOne(t: number): void {
    this.one[0] = t;
    timeRun(this.times, this.one, 0, 1);
  }

  result(): ManifestChecks {
    return {
      has_meta: this.hasMeta,
      has_full_snapshot: this.hasFullSnapshot,
      max_gap_ms: this.times[MAX_GAP]!,
      timestamps_backwards: this.times[BACKWARDS] === 1,
      first_url: this.facts.firstUrl,
      console_errors: this.facts.consoleErrors > 0 ? this.facts.consoleErrors : undefined,
    };
  }

  /** What happened in the replay, from the same pass (facts.ts). */
  factsResult(): ManifestFacts {
    return this.facts.result(this.times[FIRST]!, this.times[LAST]!);
  }
}
