/**
 * The in-memory index `view` kept before the catalogue (the whole manifest held as rows): the bench's baseline for
 * the catalogue, measured in the same run (bench/measure-view.ts).
 *
 * The index of an archive for `view`: one row per replay from the manifest's last line for it (the same state the
 * resume reads), sorted by start time, filtered and paged on the server so that a page never holds more than one
 * page of rows whatever the archive's size.
 */
import type { ManifestChecks, ManifestEntry, OkEntry, ReplayStatus } from '../sinks/sink.js';
import type { Archive } from '../sinks/archive.js';
import { readManifestState } from '../src/pipeline/manifest.js';
import { forgottenUser, platformKey } from '../src/pipeline/tombstone.js';

/** Where an `ok` entry says its output is (the manifest is input: checked by `eventsKeyOf` before use). */
export type StoredRef = Pick<OkEntry, 'replay_id' | 'key' | 'format' | 'gzip'>;

export interface IndexRow {
  id: string;
  /** The device/user part of the id (before its last `/`), empty when the id has none. */
  user: string;
  /** The session part of the id (after its last `/`). */
  session: string;
  /** The platform user id (the manifest's `platform_id`, as `archive --user` reads it), when recorded. */
  platformId: string | undefined;
  /** The page the recording starts on (the export's `checks.first_url`), empty when unknown. */
  url: string;
  /** Console errors counted at export (`checks.console_errors`); 0 when none (or an archive older than the count). */
  errors: number;
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

export type IndexSort = 'start' | 'duration' | 'events' | 'errors';

export interface IndexFilter {
  /** The platform user id (`platform_id`), exactly, as `archive --user` takes it. */
  user?: string;
  /** Substring of the device part of the id (before its last `/`). */
  device?: string;
  /** Substring of the session part of the id (after its last `/`). */
  session?: string;
  /** Substring of the first page's URL. */
  url?: string;
  /** Only replays with console errors. */
  errors?: boolean;
  /** The order: by start (earliest first, the default), or by duration, events or errors (most first). */
  sort?: IndexSort;
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
  const checks = ok?.checks !== null && typeof ok?.checks === 'object' ? ok.checks : undefined;
  return {
    id: entry.replay_id,
    user: slash < 0 ? '' : entry.replay_id.slice(0, slash),
    session: entry.replay_id.slice(slash + 1),
    platformId: platformKey(entry.platform_id),
    url: typeof checks?.first_url === 'string' ? checks.first_url : '',
    errors: typeof checks?.console_errors === 'number' ? checks.console_errors : 0,
    status: entry.status,
    start,
    durationMs: end - start,
    events: typeof ok?.event_count === 'number' ? ok.event_count : undefined,
    bytes: typeof ok?.bytes === 'number' ? ok.bytes : undefined,
    checks,
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

/** Larger first; then by start. Missing values (NaN, undefined) last. */
function most(value: (r: IndexRow) => number | undefined): (a: IndexRow, b: IndexRow) => number {
  return (a, b) => {
    const va = value(a) ?? NaN;
    const vb = value(b) ?? NaN;
    const x = Number.isNaN(va) ? -Infinity : va;
    const y = Number.isNaN(vb) ? -Infinity : vb;
    return x !== y ? y - x : byStart(a, b);
  };
}

const ORDERS: Record<Exclude<IndexSort, 'start'>, (a: IndexRow, b: IndexRow) => number> = {
  duration: most((r) => r.durationMs),
  events: most((r) => r.events),
  errors: most((r) => r.errors),
};

export class ArchiveIndex {
  private readonly byId: Map<string, IndexRow>;
  /** The rows in each order but start's, sorted once, when first asked for. */
  private readonly sorted = new Map<IndexSort, IndexRow[]>();
  private constructor(private readonly rows: IndexRow[]) {
    this.byId = new Map(rows.map((r) => [r.id, r]));
    this.sorted.set('start', rows);
  }

  private inOrder(sort: IndexSort): IndexRow[] {
    let rows = this.sorted.get(sort);
    if (rows === undefined) {
      rows = [...this.rows].sort(ORDERS[sort as Exclude<IndexSort, 'start'>]);
      this.sorted.set(sort, rows);
    }
    return rows;
  }

  /** Reads the manifest of `archive` once. */
  static async load(archive: Archive): Promise<ArchiveIndex> {
    const state = await readManifestState(archive);
    // A user's tombstone (`forget --user`) is no replay: its replays have tombstones of their own.
    const rows = [...state.values()]
      .filter((e) => forgottenUser(e) === undefined)
      .map(rowOf)
      .sort(byStart);
    return new ArchiveIndex(rows);
  }

  get size(): number {
    return this.rows.length;
  }

  /** The row of a replay id, or undefined for an id the manifest does not hold. */
  get(id: string): IndexRow | undefined {
    return this.byId.get(id);
  }

  /** One page (1-based) of the rows matching `filter`, in its order. */
  page(filter: IndexFilter, page: number, pageSize: number): IndexPage {
    const user = filter.user === undefined ? undefined : (platformKey(filter.user) ?? filter.user.trim());
    const device = filter.device?.toLowerCase();
    const session = filter.session?.toLowerCase();
    const url = filter.url?.toLowerCase();
    const out: IndexRow[] = [];
    const first = (page - 1) * pageSize;
    let total = 0;
    for (const r of this.inOrder(filter.sort ?? 'start')) {
      if (user !== undefined && r.platformId !== user) continue;
      if (device !== undefined && !r.user.toLowerCase().includes(device)) continue;
      if (session !== undefined && !r.session.toLowerCase().includes(session)) continue;
      if (url !== undefined && !r.url.toLowerCase().includes(url)) continue;
      if (filter.errors === true && r.errors === 0) continue;
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
