/**
 * Reading a manifest kept in several places at once — snapshots (the latest entry of each replay, written by a
 * compaction) and the log of what happened since — as one sequence of entries, each replay's entries oldest first.
 *
 * Every place is read in the order of its replays' groups (`replayKeyBase(id) + '/'`, the order an S3 listing gives
 * the log), so the places merge as they stream: only one replay's entries are held at a time. Within a replay the
 * entries are ordered by `recorded_at` (ties keep the order of the places: snapshots, older first, then the log), so
 * a log entry a compaction already folded but could not delete, or two snapshots of one replay, never hide a newer
 * state: whatever a crash leaves in place, the newest entry is last.
 */
import { SinkError } from './errors.js';
import type { ManifestEntry } from './sink.js';

/** One entry of a place, under its replay's group; an entry still being fetched, or dropped (`undefined`), is a promise. */
export interface GroupedEntry {
  readonly group: string;
  readonly entry: ManifestEntry | Promise<ManifestEntry | undefined>;
}

/** All entries of one replay found in the places, oldest first. */
export interface EntryGroup {
  readonly group: string;
  readonly entries: ManifestEntry[];
}

/** More entries than this for one replay is not a manifest any run writes: refused rather than held in memory. */
const MAX_GROUP_ENTRIES = 100_000;

/** `recorded_at` in ms; an entry without a readable one counts as the oldest. */
export function recordedMs(entry: ManifestEntry): number {
  const ms = typeof entry.recorded_at === 'string' ? Date.parse(entry.recorded_at) : Number.NaN;
  return Number.isFinite(ms) ? ms : Number.NEGATIVE_INFINITY;
}

/** Stable: equal times keep the order of the places. */
function oldestFirst(entries: ManifestEntry[]): ManifestEntry[] {
  const times = entries.map(recordedMs);
  return entries
    .map((_, i) => i)
    .sort((a, b) => times[a]! - times[b]! || a - b)
    .map((i) => entries[i]!);
}

interface Head {
  readonly iterator: AsyncIterator<GroupedEntry>;
  readonly name: string;
  current: GroupedEntry | undefined;
}

/**
 * Merges places, each in ascending group order, into one ascending sequence of groups. `places` are named (for the
 * error that refuses one out of order) and listed oldest first. `target` names the manifest in errors.
 */
export async function* mergeByGroup(
  places: ReadonlyArray<{ name: string; entries: AsyncIterable<GroupedEntry> }>,
  target: string,
): AsyncIterable<EntryGroup> {
  const heads: Head[] = places.map((p) => ({
    iterator: p.entries[Symbol.asyncIterator](),
    name: p.name,
    current: undefined,
  }));
  const advance = async (head: Head): Promise<void> => {
    const before = head.current?.group;
    const next = await head.iterator.next();
    head.current = next.done ? undefined : next.value;
    if (head.current !== undefined && before !== undefined && head.current.group < before) {
      throw new SinkError(
        'MANIFEST_CORRUPT',
        `${head.name} is not in key order (${head.current.group} after ${before})`,
        {
          target,
          key: head.name,
        },
      );
    }
  };
  try {
    await Promise.all(heads.map(advance));
    for (;;) {
      let group: string | undefined;
      for (const head of heads) {
        if (head.current !== undefined && (group === undefined || head.current.group < group))
          group = head.current.group;
      }
      if (group === undefined) return;
      const entries: ManifestEntry[] = [];
      for (const head of heads) {
        while (head.current !== undefined && head.current.group === group) {
          const entry = await head.current.entry;
          if (entry !== undefined) entries.push(entry);
          if (entries.length > MAX_GROUP_ENTRIES) {
            throw new SinkError('MANIFEST_CORRUPT', `more than ${MAX_GROUP_ENTRIES} manifest entries for ${group}`, {
              target,
              key: group,
            });
          }
          await advance(head);
        }
      }
      if (entries.length === 0) continue;
      yield { group, entries: entries.length === 1 ? entries : oldestFirst(entries) };
    }
  } finally {
    await Promise.allSettled(heads.map((h) => h.iterator.return?.()));
  }
}
