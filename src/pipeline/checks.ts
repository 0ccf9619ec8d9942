import { peekEventFields, peekEventTimestamp, peekEventTimestampIn, type EventBatch } from '../../decoders/index.js';
import type { ManifestChecks } from '../../sinks/sink.js';

const EVENT_TYPE_FULL_SNAPSHOT = 2;
/** `"timestamp":` — the key of rrweb's usual last member. */
const TS_KEY = Buffer.from('"timestamp":');
const TS_KEY_LEN = TS_KEY.length;

/**
 * The event in bytes[from, end) ends with rrweb's usual `,"timestamp":<digits>}` (or `{"timestamp":<digits>}`):
 * its integer value, read in one backward pass; `undefined` for anything else (the caller then peeks exactly). The
 * last member wins in JSON.parse, so this equals what JSON.parse gives.
 */
function suffixTimestamp(bytes: Buffer, from: number, end: number): number | undefined {
  let p = end - 1;
  if (p <= from || bytes[p] !== 0x7d) return undefined;
  let value = 0;
  let scale = 1;
  let digits = 0;
  while (--p > from) {
    const d = bytes[p]! - 0x30;
    if (d < 0 || d > 9) break;
    value += d * scale;
    scale *= 10;
    digits++;
  }
  if (digits === 0 || digits > 15 || (digits > 1 && bytes[p + 1] === 0x30)) return undefined;
  const key = p - TS_KEY_LEN + 1;
  if (key <= from) return undefined;
  for (let j = 0; j < TS_KEY_LEN; j++) if (bytes[key + j] !== TS_KEY[j]) return undefined;
  const before = bytes[key - 1];
  return before === 0x2c || before === 0x7b ? value : undefined;
}
const EVENT_TYPE_META = 4;

/**
 * Running checks over a replay's events as they stream past (a peek at `type` and `timestamp`, no full parse):
 * a player needs a Meta and a FullSnapshot; gaps and timestamps going backwards hint at lost or misordered data.
 */
export class ReplayChecks {
  private hasMeta = false;
  private hasFullSnapshot = false;
  private maxGap = 0;
  private backwards = false;
  /** The last finite timestamp seen; NaN before the first. */
  private last = NaN;
  count = 0;

  observe(events: readonly Buffer[]): void {
    for (const event of events) this.observeOne(event);
  }

  /** The same as `observe` for a decoded batch; events held in runs are read in place. */
  observeBatch(batch: EventBatch): void {
    if (batch.events !== undefined) {
      this.observe(batch.events);
      return;
    }
    for (const run of batch.runs) {
      const { bytes, ends, timestamps } = run;
      const n = ends.length;
      let from = 0;
      let k = 0;
      // Until the meta and full snapshot events are seen, each event's type is read too.
      for (; k < n && !(this.hasMeta && this.hasFullSnapshot); k++) {
        this.observeOne(bytes.subarray(from, ends[k]!));
        from = ends[k]! + 1;
      }
      if (k === n) continue;
      // Then only timestamps: the decoder's reading when it has one, the same reading here otherwise. The running
      // values stay in locals for the run (one event is a few instructions).
      this.count += n - k;
      let last = this.last;
      let maxGap = this.maxGap;
      let backwards = this.backwards;
      for (; k < n; k++) {
        const end = ends[k]!;
        let t = timestamps !== undefined ? timestamps[k]! : NaN;
        if (t !== t) t = suffixTimestamp(bytes, from, end) ?? peekEventTimestampIn(bytes, from, end) ?? NaN;
        if (t - t === 0) {
          // A finite timestamp (NaN and ±Infinity give NaN here).
          if (last === last) {
            const gap = t - last;
            if (gap < 0) backwards = true;
            else if (gap > maxGap) maxGap = gap;
          }
          last = t;
        }
        from = end + 1;
      }
      this.last = last;
      this.maxGap = maxGap;
      this.backwards = backwards;
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
      if (fields.type === EVENT_TYPE_META) this.hasMeta = true;
      else if (fields.type === EVENT_TYPE_FULL_SNAPSHOT) this.hasFullSnapshot = true;
    }
    this.time(timestamp);
  }

  private time(timestamp: number | undefined): void {
    if (typeof timestamp === 'number' && Number.isFinite(timestamp)) {
      if (this.last === this.last) {
        const gap = timestamp - this.last;
        if (gap < 0) this.backwards = true;
        else if (gap > this.maxGap) this.maxGap = gap;
      }
      this.last = timestamp;
    }
  }

  result(): ManifestChecks {
    return {
      has_meta: this.hasMeta,
      has_full_snapshot: this.hasFullSnapshot,
      max_gap_ms: this.maxGap,
      timestamps_backwards: this.backwards,
    };
  }
}
