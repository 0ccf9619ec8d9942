import { peekEventFields, peekEventTimestamp } from '../../decoders/index.js';
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
    for (const event of events) {
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
      if (typeof timestamp === 'number' && Number.isFinite(timestamp)) {
        if (this.last !== undefined) {
          const gap = timestamp - this.last;
          if (gap < 0) this.backwards = true;
          else if (gap > this.maxGap) this.maxGap = gap;
        }
        this.last = timestamp;
      }
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
