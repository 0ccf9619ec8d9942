/** A manifest entry as the values of one catalogue row (schema.ts `COLUMNS`), and such a row read back. */
import type { ManifestChecks, ManifestEntry, ManifestFacts, ReplayStatus } from '../../sinks/sink.js';
import { platformKey } from '../util/platform-key.js';
import type { SqlValue } from './database.js';
import { FLAGS } from './schema.js';

/** One replay as the catalogue holds it. */
export interface CatalogueRow {
  id: string;
  /** The device part of the id (before its last `/`), empty when the id has none. */
  device: string;
  /** The session part of the id (after its last `/`). */
  session: string;
  /** The platform user id (the manifest's `platform_id`), when recorded. */
  user: string | undefined;
  status: ReplayStatus;
  /** Start time, ms since the epoch; undefined when the manifest has none. */
  start: number | undefined;
  /** Duration in ms (the facts', else the listing's start to end); undefined when unknown. */
  duration: number | undefined;
  events: number | undefined;
  bytes: number | undefined;
  /** Page loads, the page URLs (distinct, first visit first), clicks... (facts recorded at export; undefined in an archive exported before them). */
  pages: number | undefined;
  urls: string[];
  clicks: number | undefined;
  rageClicks: number | undefined;
  deadClicks: number | undefined;
  /** Console errors (0 when none, or unknown). */
  errors: number;
  firstError: string | undefined;
  /** When the first error happened, ms from the replay's first event. */
  firstErrorMs: number | undefined;
  /** Requests and failed requests in the recording's network events; undefined when it holds none. */
  requests: number | undefined;
  failedRequests: number | undefined;
  /** Active time in ms. */
  active: number | undefined;
  viewport: { width: number; height: number } | undefined;
  checks: ManifestChecks | undefined;
  /** Where an `ok` entry's output is (checked against the layout before it is opened). */
  stored: { replay_id: string; key: string; format: unknown; gzip: unknown } | undefined;
  /** Whether the entry records captured assets. */
  hasAssets: boolean;
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

function ms(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const t = Date.parse(value);
  return Number.isFinite(t) ? t : null;
}

function objectOf<T>(value: unknown): T | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as T) : undefined;
}

/** The strings of a list (the manifest is input: anything else is dropped). */
function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * A recorded URL as a browser's URL parser reads it: without ASCII tabs and line breaks (the URL Standard removes
 * them). The catalogue keeps a replay's URLs one a line, so a line break recorded in one cannot split it in two.
 */
function pageUrl(recorded: string): string {
  return recorded.replace(/[\t\n\r]/g, '');
}

/** The facts' URLs, or the checks' first URL in an archive exported before facts. */
function urlsOf(facts: ManifestFacts | undefined, checks: ManifestChecks | undefined): string[] {
  if (facts !== undefined) return strings(facts.urls).map(pageUrl);
  return typeof checks?.first_url === 'string' ? [pageUrl(checks.first_url)] : [];
}

/** Whether an entry is a user's tombstone (`forget --user`): no replay, not a row. */
export function isUserTombstone(entry: ManifestEntry): boolean {
  return entry.status === 'forgotten' && entry.scope === 'user';
}

/**
 * A replay id as the catalogue stores it: as text, unless it holds a NUL, at which Node 22's `node:sqlite` cuts a text
 * value it reads back (`a\0b` would come back as `a`: another id, maybe another replay's, handed to `find`'s pipe);
 * such an id is its UTF-16 code units, a blob.
 */
export function storedId(id: string): SqlValue {
  return id.includes('\0') ? new Uint8Array(Buffer.from(id, 'utf16le')) : id;
}

/** The replay id of a value `storedId` made. */
function idOf(value: unknown): string {
  if (!(value instanceof Uint8Array)) return String(value);
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf16le');
}

/** The row values of `entry`, in `COLUMNS` order. */
export function rowValues(entry: ManifestEntry): SqlValue[] {
  const id = entry.replay_id;
  const slash = id.lastIndexOf('/');
  const ok = entry.status === 'ok' ? entry : undefined;
  const checks = objectOf<ManifestChecks>(ok?.checks);
  const facts = objectOf<ManifestFacts>(ok?.facts);
  const viewport = objectOf<{ width: unknown; height: unknown }>(facts?.viewport);
  const start = ms(entry.start_time);
  const end = ms(entry.end_time);
  const listed = start !== null && end !== null && end >= start ? end - start : null;
  const urls = urlsOf(facts, checks);
  const errors = count(facts?.errors) ?? count(checks?.console_errors) ?? 0;
  const assets = objectOf<Record<string, unknown>>(ok?.assets);
  const flag = (value: number | null, bit: number): number => (value !== null && value > 0 ? bit : 0);
  const rage = count(facts?.rage_clicks);
  const dead = count(facts?.dead_clicks);
  const failed = count(facts?.network_failed);
  return [
    storedId(id),
    slash < 0 ? '' : id.slice(0, slash),
    id.slice(slash + 1),
    platformKey(entry.platform_id) ?? null,
    typeof entry.status === 'string' ? entry.status : 'unknown',
    start,
    count(facts?.duration_ms) ?? listed,
    count(ok?.event_count),
    count(ok?.bytes),
    count(facts?.pages),
    urls.length === 0 ? null : urls.join('\n'),
    urls[0] ?? null,
    count(facts?.clicks),
    rage,
    dead,
    errors,
    typeof facts?.first_error === 'string' ? facts.first_error : null,
    count(facts?.first_error_ms),
    count(facts?.network_requests),
    failed,
    count(facts?.active_ms),
    count(viewport?.width),
    count(viewport?.height),
    checks === undefined ? null : JSON.stringify(checks),
    ok === undefined ? null : JSON.stringify({ key: ok.key, format: ok.format, gzip: ok.gzip }),
    assets !== undefined && Object.keys(assets).length > 0 ? 1 : 0,
    flag(errors, FLAGS.errors) | flag(rage, FLAGS.rage) | flag(dead, FLAGS.dead) | flag(failed, FLAGS.failed),
  ];
}

type Raw = Record<string, unknown>;

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function parsedObject<T>(text: unknown): T | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    return objectOf<T>(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** A row as SQLite gives it (column name → value) as a `CatalogueRow`. */
export function rowOf(raw: Raw): CatalogueRow {
  const id = idOf(raw['id']);
  const slash = id.lastIndexOf('/');
  const stored = parsedObject<{ key: string; format: unknown; gzip: unknown }>(raw['stored']);
  const width = num(raw['width']);
  const height = num(raw['height']);
  return {
    id,
    device: slash < 0 ? '' : id.slice(0, slash),
    session: id.slice(slash + 1),
    user: str(raw['user']),
    status: String(raw['status']) as ReplayStatus,
    start: num(raw['start']),
    duration: num(raw['duration']),
    events: num(raw['events']),
    bytes: num(raw['bytes']),
    pages: num(raw['pages']),
    urls: typeof raw['urls'] === 'string' ? raw['urls'].split('\n') : [],
    clicks: num(raw['clicks']),
    rageClicks: num(raw['rage']),
    deadClicks: num(raw['dead']),
    errors: num(raw['errors']) ?? 0,
    firstError: str(raw['first_error']),
    firstErrorMs: num(raw['first_error_ms']),
    requests: num(raw['requests']),
    failedRequests: num(raw['failed']),
    active: num(raw['active']),
    viewport: width !== undefined && height !== undefined ? { width, height } : undefined,
    checks: parsedObject<ManifestChecks>(raw['checks']),
    stored: stored === undefined ? undefined : { replay_id: id, ...stored },
    hasAssets: raw['assets'] === 1,
  };
}
