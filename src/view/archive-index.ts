/**
 * The index of an archive for `view`: one row per replay from the manifest's last line for it (the same state the
 * resume reads), sorted by start time, filtered and paged on the server so that a page never holds more than one
 * page of rows whatever the archive's size.
 */
import type { ManifestChecks, ManifestEntry, OkEntry, ReplayStatus } from '../../sinks/sink.js';
import type { Archive } from '../../sinks/archive.js';
import { readManifestState } from '../pipeline/manifest.js';
import { forgottenUser } from '../pipeline/tombstone.js';

/** Where an `ok` entry says its output is (the manifest is input: checked by `eventsKeyOf` before use). */
export type StoredRef = Pick<OkEntry, 'replay_id' | 'key' | 'format' | 'gzip'>;

export interface IndexRow {
  id: string;
  /** The device/user part of the id (before its last `/`), empty when the id has none. */
  user: string;
  status: ReplayStatus;
  /** Start time in ms since the epoch, NaN when the manifest has none. */
  start: number;
  /** Duration in ms, NaN when start or end is missing. */
  durationMs: number;
  events: number | undefined;
  bytes: number | undefined;
  checks: ManifestChecks | undefined;
  /** The stored output of an `ok` entry (id, key, format, gzip); undefined for any other status. */
  stored: StoredRef | undefined;
  /** Whether the entry records captured assets (their map is read again when the replay is opened). */
  hasAssets: boolean;
}

export interface IndexFilter {
  /** Substring of the user/device part. */
  user?: string;
  status?: ReplayStatus;
  /** Start at or after (ms since the epoch). */
  from?: number;
  /** Start before (ms since the epoch). */
  to?: number;
  minDurationMs?: number;
  maxDurationMs?: number;
}

export interface IndexPage {
  rows: IndexRow[];
  /** Rows matching the filter in all. */
  total: number;
  page: number;
  pageSize: number;
}

function rowOf(entry: ManifestEntry): IndexRow {
  const slash = entry.replay_id.lastIndexOf('/');
  const start = entry.start_time === undefined ? NaN : Date.parse(entry.start_time);
  const end = entry.end_time === undefined ? NaN : Date.parse(entry.end_time);
  const ok = entry.status === 'ok' ? entry : undefined;
  return {
    id: entry.replay_id,
    user: slash < 0 ? '' : entry.replay_id.slice(0, slash),
    status: entry.status,
    start,
    durationMs: end - start,
    events: typeof ok?.event_count === 'number' ? ok.event_count : undefined,
    bytes: typeof ok?.bytes === 'number' ? ok.bytes : undefined,
    checks: ok?.checks !== null && typeof ok?.checks === 'object' ? ok.checks : undefined,
    hasAssets: ok?.assets !== null && typeof ok?.assets === 'object' && Object.keys(ok.assets).length > 0,
    // Only what opening the stored object needs: file keys and versions (and asset maps) are not kept for 100,000+ rows.
    stored: ok === undefined ? undefined : { replay_id: ok.replay_id, key: ok.key, format: ok.format, gzip: ok.gzip },
  };
}

/** Replays without a start time sort last; equal starts by id. */
function byStart(a: IndexRow, b: IndexRow): number {
  const sa = Number.isNaN(a.start) ? Infinity : a.start;
  const sb = Number.isNaN(b.start) ? Infinity : b.start;
  return sa !== sb ? sa - sb : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export class ArchiveIndex {
  private readonly byId: Map<string, IndexRow>;
  private constructor(private readonly rows: IndexRow[]) {
    this.byId = new Map(rows.map((r) => [r.id, r]));
  }

  /** Reads the manifest of `archive` once. */
  static async load(archive: Archive): Promise<ArchiveIndex> {
    const state = await readManifestState(archive);
    // A user's tombstone (`forget --user`) is no replay: its replays have tombstones of their own.
    const rows = [...state.values()].filter((e) => forgottenUser(e) === undefined).map(rowOf).sort(byStart);
    return new ArchiveIndex(rows);
  }

  get size(): number {
    return this.rows.length;
  }

  /** The row of a replay id, or undefined for an id the manifest does not hold. */
  get(id: string): IndexRow | undefined {
    return this.byId.get(id);
  }

  /** One page (1-based) of the rows matching `filter`, in start order. */
  page(filter: IndexFilter, page: number, pageSize: number): IndexPage {
    const user = filter.user?.toLowerCase();
    const out: IndexRow[] = [];
    const first = (page - 1) * pageSize;
    let total = 0;
    for (const r of this.rows) {
      if (user !== undefined && !r.user.toLowerCase().includes(user)) continue;
      if (filter.status !== undefined && r.status !== filter.status) continue;
      if (filter.from !== undefined && !(r.start >= filter.from)) continue;
      if (filter.to !== undefined && !(r.start < filter.to)) continue;
      if (filter.minDurationMs !== undefined && !(r.durationMs >= filter.minDurationMs)) continue;
      if (filter.maxDurationMs !== undefined && !(r.durationMs <= filter.maxDurationMs)) continue;
      if (total >= first && out.length < pageSize) out.push(r);
      total++;
    }
    return { rows: out, total, page, pageSize };
  }
}
