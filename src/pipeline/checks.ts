import { peekEventFields, peekEventTimestamp, peekEventTimestampIn, type EventBatch } from '../../decoders/index.js';
import type { ManifestChecks } from '../../sinks/sink.js';

const EVENT_TYPE_FULL_SNAPSHOT = 2;
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
  private last: number | undefined;
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
      const { bytes, ends } = run;
      let from = 0;
      for (let k = 0; k < ends.length; k++) {
        const end = ends[k]!;
        if (this.hasMeta && this.hasFullSnapshot) {
          this.count++;
          this.time(peekEventTimestampIn(bytes, from, end));
        } else this.observeOne(bytes.subarray(from, end));
        from = end + 1;
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
      if (fields.type === EVENT_TYPE_META) this.hasMeta = true;
      else if (fields.type === EVENT_TYPE_FULL_SNAPSHOT) this.hasFullSnapshot = true;
    }
    this.time(timestamp);
  }

  private time(timestamp: number | undefined): void {
    if (typeof timestamp === 'number' && Number.isFinite(timestamp)) {
      if (this.last !== undefined) {
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
