/**
 * What happened in a replay, read from its events as they stream past (the pass that computes the checks): pages
 * visited, clicks, rage and dead clicks, console errors and their first message, failed network requests, duration,
 * active time and viewport (docs/VIEW.md "Facts" defines each). Most events are told apart by their first bytes
 * (`{"type":3,"data":{"source":N`, as rrweb writes them); only the rare ones (a Meta, a click, a console or network
 * plugin event) are parsed, each within a size bound. Whatever the recording holds, the result is bounded: at most
 * `FACT_LIMITS.urls` URLs of `FACT_LIMITS.urlBytes` bytes, one error message of `FACT_LIMITS.messageBytes`; the rest
 * is counted.
 */
import { peekEventFields, peekEventTimestampIn } from '../../decoders/index.js';
import { trailingTimestamp } from '../../decoders/trailing-timestamp.js';
import type { ManifestFacts } from '../../sinks/sink.js';

export const FACT_LIMITS = Object.freeze({
  /** Distinct page URLs listed (first visits first); later ones are counted in `urls_more`. */
  urls: 16,
  /** Bytes of a listed URL (cut on a character boundary). */
  urlBytes: 400,
  /** Bytes of the first console error's message. */
  messageBytes: 400,
  /** A Meta event larger than this is counted as a page load without reading its URL. */
  metaBytes: 64 * 1024,
  /** A console or network plugin event larger than this is counted, not read. */
  pluginBytes: 256 * 1024,
  /** A click event larger than this is counted without its position. */
  clickBytes: 4096,
  /** Clicks waiting for a reaction at once (more within the dead-click window are not judged). */
  pendingClicks: 64,
});

/** Rage clicks (PostHog's rule): this many clicks ... */
const RAGE_CLICKS = 3;
/** ... within this time of the first ... */
const RAGE_WINDOW_MS = 1000;
/** ... and this distance (px) of it. */
const RAGE_RADIUS_PX = 30;
/** Dead clicks (Sentry's rule): no DOM change or navigation within this time after the click ... */
const DEAD_CLICK_MS = 7000;
/** ... nor a scroll within this time. */
const DEAD_CLICK_SCROLL_MS = 300;
/** Active time: gaps between user interactions up to this long count as active. */
const ACTIVE_GAP_MS = 5000;

const META = 0x34; // '4'
const FULL_SNAPSHOT = 0x32; // '2'
const INCREMENTAL = 0x33; // '3'
const PLUGIN = 0x36; // '6'

/** rrweb's IncrementalSource values read here. */
const SOURCE_MUTATION = 0;
const SOURCE_MOUSE_INTERACTION = 2;
const SOURCE_SCROLL = 3;
/** rrweb's user interactions (its `isUserInteraction`): mouse moves, mouse interactions, scrolls, resizes, inputs. */
const FIRST_INTERACTION = 1;
const LAST_INTERACTION = 5;
/**
 * Sources that change what the page shows (a reaction to a click): mutations, media, style sheets, canvas, styles,
 * selection; 1 at their index (sources up to 99).
 */
const REACTION = new Uint8Array(100);
for (const s of [SOURCE_MUTATION, 7, 8, 9, 13, 14, 15]) REACTION[s] = 1;

const SOURCE_PREFIX = Buffer.from('"data":{"source":');
const CLICK_TYPE = Buffer.from(',"type":2');
const CONSOLE_PLUGIN = Buffer.from('"plugin":"rrweb/console@1"');
const NETWORK_PLUGIN = Buffer.from('"plugin":"rrweb/network@1"');
const LEVEL_ERROR = Buffer.from('"level":"error"');

/**
 * The type of the event at `from` as rrweb writes it (`{"type":<digit>,`): the digit's char code, or 0 when it starts
 * otherwise.
 */
function leadingType(bytes: Buffer, from: number): number {
  const comma = bytes[from + 9];
  const digit = bytes[from + 8]!;
  return comma === 0x2c &&
    bytes[from + 7] === 0x3a && // :
    bytes[from + 6] === 0x22 && // "
    bytes[from] === 0x7b && // {
    bytes[from + 1] === 0x22 && // "
    bytes[from + 2] === 0x74 && // t
    bytes[from + 3] === 0x79 && // y
    bytes[from + 4] === 0x70 && // p
    bytes[from + 5] === 0x65 // e
    ? digit
    : 0;
}

/** The type's char code of the event [from, end): from its first bytes, else peeked (0 when it has none). */
function typeOf(bytes: Buffer, from: number, end: number): number {
  const t = end - from > 10 ? leadingType(bytes, from) : 0;
  if (t !== 0) return t;
  const type = peekEventFields(bytes.subarray(from, end)).type;
  return typeof type === 'number' && type >= 0 && type <= 9 ? 0x30 + type : 0;
}

/**
 * The source of an incremental snapshot [from, end) when it starts `{"type":3,"data":{"source":<digits>` (the way
 * rrweb writes it), else -1 (such an event is not told apart: it counts as none of the facts).
 */
function sourceOf(bytes: Buffer, from: number, end: number): number {
  const at = from + 10;
  if (end - at < SOURCE_PREFIX.length + 2) return -1;
  for (let i = 0; i < SOURCE_PREFIX.length; i++) if (bytes[at + i] !== SOURCE_PREFIX[i]) return -1;
  const d = at + SOURCE_PREFIX.length;
  const a = bytes[d]! - 0x30;
  if (a < 0 || a > 9) return -1;
  const b = bytes[d + 1]! - 0x30;
  return b >= 0 && b <= 9 ? a * 10 + b : a;
}

/**
 * The source of the incremental snapshot at `from` (its type read already) when it goes on `"data":{"source":<digits>`
 * as rrweb writes it, else -1; a few bytes tested, not all (an event that only looks so is counted as it says).
 */
function rrwebSource(bytes: Buffer, from: number): number {
  if (bytes[from + 11] !== 0x64 || bytes[from + 17] !== 0x7b || bytes[from + 26] !== 0x3a) return -1; // d { :
  const a = bytes[from + 27]! - 0x30;
  if (a < 0 || a > 9) return -1;
  const b = bytes[from + 28]! - 0x30;
  return b >= 0 && b <= 9 ? a * 10 + b : a;
}

/** Whether the mouse interaction [from, end) is a click (`"source":2,"type":2`). */
function isClick(bytes: Buffer, from: number, end: number): boolean {
  const at = from + 10 + SOURCE_PREFIX.length + 1;
  if (end - at < CLICK_TYPE.length + 1) return false;
  for (let i = 0; i < CLICK_TYPE.length; i++) if (bytes[at + i] !== CLICK_TYPE[i]) return false;
  const next = bytes[at + CLICK_TYPE.length];
  return next === 0x2c || next === 0x7d; // , }
}

const HREF_PREFIX = Buffer.from('"data":{"href":"');

/**
 * The href of a Meta event [from, end) written `{"type":4,"data":{"href":"<plain text>",` (no escape in it), read
 * without parsing the event; undefined when it is written otherwise (then parsed) or longer than a Meta may be read.
 */
function plainHref(bytes: Buffer, from: number, end: number): string | undefined {
  const start = from + 10 + HREF_PREFIX.length;
  if (end - from > FACT_LIMITS.metaBytes || end <= start) return undefined;
  for (let i = 0; i < HREF_PREFIX.length; i++) if (bytes[from + 10 + i] !== HREF_PREFIX[i]) return undefined;
  for (let i = start; i < end; i++) {
    const c = bytes[i];
    if (c === 0x22) return bytes.toString('utf8', start, i);
    if (c === 0x5c || c! < 0x20) return undefined;
  }
  return undefined;
}

const X_KEY = Buffer.from('"x":');
const Y_KEY = Buffer.from('"y":');

/**
 * The number after `key` in [from, end) of a small event (a click's `"x":`), read in place: an optional `-`, digits,
 * an optional fraction; NaN when there is none. Not a JSON parser: a key inside a string could be read (a position
 * from a hostile recording only moves its own rage-click count).
 */
function numberAfter(bytes: Buffer, key: Buffer, from: number, end: number): number {
  // The key's four bytes, looked for byte by byte: a click is short, and a native indexOf costs more than its length.
  const k0 = key[0]!;
  const k1 = key[1]!;
  let at = from;
  while (
    at + 4 < end &&
    !(bytes[at] === k0 && bytes[at + 1] === k1 && bytes[at + 2] === 0x22 && bytes[at + 3] === 0x3a)
  )
    at++;
  if (at + 4 >= end) return NaN;
  let i = at + 4;
  const negative = bytes[i] === 0x2d;
  if (negative) i++;
  let value = 0;
  let digits = 0;
  for (let c = bytes[i]! - 0x30; i < end && c >= 0 && c <= 9; c = bytes[++i]! - 0x30, digits++) value = value * 10 + c;
  if (digits === 0 || digits > 15) return NaN;
  if (bytes[i] === 0x2e) {
    let scale = 0.1;
    for (let c = bytes[++i]! - 0x30; i < end && c >= 0 && c <= 9; c = bytes[++i]! - 0x30, scale /= 10)
      value += c * scale;
  }
  return negative ? -value : value;
}

function includesIn(bytes: Buffer, needle: Buffer, from: number, end: number): boolean {
  const i = bytes.indexOf(needle, from);
  return i >= 0 && i + needle.length <= end;
}

function parsed(bytes: Buffer, from: number, end: number): unknown {
  try {
    return JSON.parse(bytes.toString('utf8', from, end));
  } catch {
    return undefined;
  }
}

function objectAt(value: unknown, key: string): Record<string, unknown> | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = (value as Record<string, unknown>)[key];
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** `text` cut to at most `max` UTF-8 bytes, on a character boundary. */
function cutToBytes(text: string, max: number): string {
  if (text.length * 3 <= max || Buffer.byteLength(text) <= max) return text;
  let cut = text.slice(0, max);
  while (Buffer.byteLength(cut) > max) cut = cut.slice(0, -1);
  // A lone high surrogate left at the end is no character.
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/** The message of a console plugin event: its arguments (each a JSON string) joined by spaces. */
function consoleMessage(event: unknown): string | undefined {
  const payload = objectAt(objectAt(event, 'data'), 'payload');
  const args = payload?.['payload'];
  if (!Array.isArray(args)) return undefined;
  const parts: string[] = [];
  let length = 0;
  for (const arg of args) {
    if (typeof arg !== 'string') continue;
    let text = arg;
    if (text.startsWith('"')) {
      try {
        const unquoted: unknown = JSON.parse(text);
        if (typeof unquoted === 'string') text = unquoted;
      } catch {
        // kept as written
      }
    }
    parts.push(text);
    length += text.length + 1;
    if (length > FACT_LIMITS.messageBytes) break;
  }
  return parts.length === 0 ? undefined : cutToBytes(parts.join(' '), FACT_LIMITS.messageBytes);
}

/** The requests of a network plugin event, and how many of them failed (HTTP status ≥ 400, or 0: never answered). */
function networkRequests(event: unknown): { requests: number; failed: number } {
  const requests = objectAt(objectAt(event, 'data'), 'payload')?.['requests'];
  if (!Array.isArray(requests)) return { requests: 0, failed: 0 };
  let failed = 0;
  for (const r of requests) {
    if (r === null || typeof r !== 'object') continue;
    const o = r as Record<string, unknown>;
    const status = typeof o['responseStatus'] === 'number' ? o['responseStatus'] : o['status'];
    if (typeof status === 'number' && (status >= 400 || status === 0)) failed++;
  }
  return { requests: requests.length, failed };
}

/** No click waiting, and none yet: most replays' facts never make room for them. */
const NO_CLICKS = new Float64Array(0);

/**
 * The running facts of one replay. `observeRun` and `observeEvent` take every event once, in order, each with its
 * timestamp when the caller has read it (NaN otherwise: read here when needed).
 */
export class ReplayFacts {
  private pages = 0;
  private readonly urls: string[] = [];
  private urlsMore = 0;
  /** The first page URL as recorded (not cut). */
  private firstHref: string | undefined;
  private viewport: { width: number; height: number } | undefined;
  private clicks = 0;
  private rageClicks = 0;
  private deadClicks = 0;
  /** The current burst of clicks near its first: its first click's time and position, and its length. */
  private burstAt = NaN;
  private burstX = NaN;
  private burstY = NaN;
  private burstLength = 0;
  /** Clicks waiting for a reaction (their times, oldest first); made at the first click. */
  private pending = NO_CLICKS;
  private pendingCount = 0;
  private errors = 0;
  private firstError: string | undefined;
  private firstErrorAt = NaN;
  private networkRequests = 0;
  private networkFailed = 0;
  private networkSeen = false;
  private lastInteraction = NaN;
  private activeMs = 0;

  /** The events k… of a run (`ends` and the decoder's `timestamps` as in `EventRun`). */
  observeRun(bytes: Buffer, ends: Int32Array, timestamps: Float64Array | undefined, k: number): void {
    const n = ends.length;
    // The running active time in locals: most events are interactions, and this loop is the cost of the facts.
    let last = this.lastInteraction;
    let active = this.activeMs;
    for (let j = k, at = k === 0 ? 0 : ends[k - 1]! + 1; j < n; at = ends[j]! + 1, j++) {
      const end = ends[j]!;
      // Most events are incremental snapshots as rrweb writes them: their source read in place, in a few byte tests.
      const source = end - at > 30 && leadingType(bytes, at) === INCREMENTAL ? rrwebSource(bytes, at) : -2;
      if (source === -1 || (source > LAST_INTERACTION && REACTION[source] === 0)) continue;
      let t = timestamps === undefined ? NaN : timestamps[j]!;
      if (source >= FIRST_INTERACTION && source <= LAST_INTERACTION) {
        if (Number.isNaN(t)) t = this.time(bytes, at, end, t);
        if (t - t === 0) {
          const gap = t - last;
          if (gap > 0 && gap <= ACTIVE_GAP_MS) active += gap;
          if (!(last >= t)) last = t;
        }
        if (source === SOURCE_MOUSE_INTERACTION || (source === SOURCE_SCROLL && this.pendingCount > 0))
          this.mouse(bytes, at, end, t, source);
      } else if (source === -2) this.observeEvent(bytes, at, end, t);
      else if (this.pendingCount > 0) this.reacted(this.time(bytes, at, end, t));
    }
    this.lastInteraction = last;
    this.activeMs = active;
  }

  /** The event [from, end) of `bytes`; `t` its timestamp when known (NaN: read here if needed). */
  observeEvent(bytes: Buffer, from: number, end: number, t: number): void {
    const type = typeOf(bytes, from, end);
    if (type === INCREMENTAL) {
      const source = sourceOf(bytes, from, end);
      if (source >= 0) this.incremental(bytes, from, end, t, source);
    } else if (type === PLUGIN) this.plugin(bytes, from, end, t);
    else if (type === META) this.meta(bytes, from, end, t);
    else if (type === FULL_SNAPSHOT && this.pendingCount > 0) this.reacted(this.time(bytes, from, end, t));
  }

  /** An incremental snapshot of `source`: a user interaction (a click among them), or a reaction to clicks. */
  private incremental(bytes: Buffer, from: number, end: number, t: number, source: number): void {
    if (source >= FIRST_INTERACTION && source <= LAST_INTERACTION) {
      const time = this.time(bytes, from, end, t);
      this.interaction(time);
      this.mouse(bytes, from, end, time, source);
    } else if (REACTION[source] === 1 && this.pendingCount > 0) this.reacted(this.time(bytes, from, end, t));
  }

  /** A mouse interaction (a click?) or a scroll (an answer to clicks waiting?), at `t`. */
  private mouse(bytes: Buffer, from: number, end: number, t: number, source: number): void {
    if (source === SOURCE_MOUSE_INTERACTION && isClick(bytes, from, end)) this.click(bytes, from, end, t);
    else if (source === SOURCE_SCROLL && this.pendingCount > 0) this.scrolled(t);
  }

  /** The event's timestamp: `t`, or read from its bytes (NaN when it has none). */
  private time(bytes: Buffer, from: number, end: number, t: number): number {
    if (!Number.isNaN(t)) return t;
    const time = trailingTimestamp(bytes, from, end);
    return !Number.isNaN(time) ? time : (peekEventTimestampIn(bytes, from, end) ?? NaN);
  }

  private interaction(t: number): void {
    if (!Number.isFinite(t)) return;
    const gap = t - this.lastInteraction;
    if (gap > 0 && gap <= ACTIVE_GAP_MS) this.activeMs += gap;
    if (!(this.lastInteraction >= t)) this.lastInteraction = t;
  }

  private click(bytes: Buffer, from: number, end: number, t: number): void {
    this.clicks++;
    const small = end - from <= FACT_LIMITS.clickBytes;
    // rrweb writes `{"type":3,"data":{"source":2,"type":2,"id":<n>,"x":...`: the keys are looked for past its start.
    const x = small ? numberAfter(bytes, X_KEY, from + 37, end) : NaN;
    const y = small ? numberAfter(bytes, Y_KEY, from + 37, end) : NaN;
    const near =
      t - this.burstAt >= 0 &&
      t - this.burstAt <= RAGE_WINDOW_MS &&
      Math.hypot(x - this.burstX, y - this.burstY) <= RAGE_RADIUS_PX;
    if (near) {
      this.burstLength++;
      // One rage click per burst, counted when it reaches its third click.
      if (this.burstLength === RAGE_CLICKS) this.rageClicks++;
    } else {
      this.burstAt = t;
      this.burstX = x;
      this.burstY = y;
      this.burstLength = 1;
    }
    if (!Number.isFinite(t)) return;
    this.expire(t);
    if (this.pending === NO_CLICKS) this.pending = new Float64Array(FACT_LIMITS.pendingClicks);
    if (this.pendingCount < this.pending.length) this.pending[this.pendingCount++] = t;
  }

  /** Pending clicks whose window closed before `t` without a reaction are dead. */
  private expire(t: number): void {
    let dead = 0;
    while (dead < this.pendingCount && this.pending[dead]! + DEAD_CLICK_MS < t) dead++;
    if (dead === 0) return;
    this.deadClicks += dead;
    this.pending.copyWithin(0, dead, this.pendingCount);
    this.pendingCount -= dead;
  }

  /** A DOM change or navigation at `t`: the clicks still waiting (within their window) were answered. */
  private reacted(t: number): void {
    if (!Number.isFinite(t)) return;
    this.expire(t);
    // Clicks after `t` (timestamps out of order) keep waiting.
    let answered = 0;
    while (answered < this.pendingCount && this.pending[answered]! <= t) answered++;
    this.pending.copyWithin(0, answered, this.pendingCount);
    this.pendingCount -= answered;
  }

  /** A scroll at `t` answers the clicks of the last `DEAD_CLICK_SCROLL_MS` before it; older ones keep waiting. */
  private scrolled(t: number): void {
    if (!Number.isFinite(t)) return;
    this.expire(t);
    const n = this.pendingCount;
    let lo = 0;
    while (lo < n && this.pending[lo]! < t - DEAD_CLICK_SCROLL_MS) lo++;
    let hi = lo;
    while (hi < n && this.pending[hi]! <= t) hi++;
    if (hi === lo) return;
    this.pending.copyWithin(lo, hi, n);
    this.pendingCount = n - (hi - lo);
  }

  private meta(bytes: Buffer, from: number, end: number, t: number): void {
    const time = this.time(bytes, from, end, t);
    if (this.pendingCount > 0) this.reacted(time);
    this.pages++;
    // The first Meta is parsed (its size too); later ones only for their href, read in place when rrweb wrote it plain.
    let href: unknown = this.viewport === undefined ? undefined : plainHref(bytes, from, end);
    if (href === undefined) {
      const data = end - from <= FACT_LIMITS.metaBytes ? objectAt(parsed(bytes, from, end), 'data') : undefined;
      href = data?.['href'];
      if (this.viewport === undefined && typeof data?.['width'] === 'number' && typeof data['height'] === 'number')
        this.viewport = { width: data['width'], height: data['height'] };
    }
    if (typeof href !== 'string') {
      this.urlsMore++;
      return;
    }
    this.firstHref ??= href;
    const url = cutToBytes(href, FACT_LIMITS.urlBytes);
    if (this.urls.includes(url)) return;
    if (this.urls.length < FACT_LIMITS.urls) this.urls.push(url);
    else this.urlsMore++;
  }

  private plugin(bytes: Buffer, from: number, end: number, t: number): void {
    if (includesIn(bytes, CONSOLE_PLUGIN, from, end)) {
      if (!includesIn(bytes, LEVEL_ERROR, from, end)) return;
      this.errors++;
      if (this.firstError !== undefined) return;
      const time = this.time(bytes, from, end, t);
      if (Number.isNaN(this.firstErrorAt)) this.firstErrorAt = time;
      if (end - from <= FACT_LIMITS.pluginBytes) this.firstError = consoleMessage(parsed(bytes, from, end));
      return;
    }
    if (includesIn(bytes, NETWORK_PLUGIN, from, end)) {
      this.networkSeen = true;
      if (end - from > FACT_LIMITS.pluginBytes) return;
      const { requests, failed } = networkRequests(parsed(bytes, from, end));
      this.networkRequests += requests;
      this.networkFailed += failed;
    }
  }

  /** The console errors counted so far (the checks' `console_errors`). */
  get consoleErrors(): number {
    return this.errors;
  }

  /** The first page's URL as recorded, not cut (the checks' `first_url`). */
  get firstUrl(): string | undefined {
    return this.firstHref;
  }

  /**
   * The facts, given the replay's first and last event timestamps (the checks read every event's; NaN when none):
   * clicks still waiting when the recording ends are dead if it went on for the whole window after them.
   */
  result(first: number, last: number): ManifestFacts {
    let dead = this.deadClicks;
    for (let i = 0; i < this.pendingCount; i++) if (this.pending[i]! + DEAD_CLICK_MS < last) dead++;
    const hasTime = Number.isFinite(first) && Number.isFinite(last);
    const facts: ManifestFacts = {
      pages: this.pages,
      urls: [...this.urls],
      clicks: this.clicks,
      rage_clicks: this.rageClicks,
      dead_clicks: dead,
      errors: this.errors,
      duration_ms: hasTime ? Math.max(0, last - first) : 0,
      active_ms: this.activeMs,
    };
    if (this.urlsMore > 0) facts.urls_more = this.urlsMore;
    if (this.firstError !== undefined) facts.first_error = this.firstError;
    if (Number.isFinite(this.firstErrorAt) && hasTime) facts.first_error_ms = Math.max(0, this.firstErrorAt - first);
    if (this.networkSeen) {
      facts.network_requests = this.networkRequests;
      facts.network_failed = this.networkFailed;
    }
    if (this.viewport !== undefined) facts.viewport = this.viewport;
    return facts;
  }
}
