/**
 * The URLs a replay's events reference that `--capture-assets` fetches: stylesheets (`<link rel=stylesheet href>`,
 * `@import`), `url()` inside style sheets, `<style>` text and style attributes (fonts, backgrounds), `<img src/srcset>`,
 * `<source src/srcset>`, `<input type=image src>`, `<video poster>` and icons (`<link rel=icon href>`).
 *
 * Events are scanned one at a time as they stream (rrweb's serialized nodes of full snapshots, mutations' adds,
 * attribute and text changes, style sheet rule events); relative URLs are resolved against the page's address (the
 * Meta event's `href`) or, for a stylesheet's `_cssText`, the stylesheet's. Per-replay state is bounded: at most
 * `maxUrls` URLs, and the few element ids needed to know which attribute changes and texts are about links, images
 * or `<style>` elements (capped too).
 */
import { scanCss } from '../../sinks/player/browser/css-scan.js';

/** Most element ids a replay's scan remembers the tag of (only elements whose attributes reference assets). */
const MAX_TRACKED_IDS = 200_000;

/** Tags whose attributes may reference an asset, by the attributes that do. */
const URL_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  img: ['src', 'srcset'],
  source: ['src', 'srcset'],
  input: ['src'],
  video: ['poster'],
  link: ['href'],
};
const LINK_RELS = /(^|\s)(stylesheet|icon|apple-touch-icon|preload)(\s|$)/i;

/** A count of the characters a scanner looked at (tests bound it: every scanner is linear in its input). */
export interface ScanMeter {
  steps: number;
}

/**
 * The URLs of `url()`, `@import` and the strings of the functions that take URLs (`url("…")`, `image-set()`, …) in
 * CSS text, as written (unresolved, escapes read), in order: the player's CSS scanner (one forward pass, CSS's own
 * tokenizer: sinks/player/browser/css-scan.ts), so its work is linear in the text's length whatever the text holds
 * (`meter` counts it); a commented-out rule or a string elsewhere (`content: "url(x)"`) references nothing.
 */
export function cssUrls(text: string, meter: ScanMeter = { steps: 0 }): string[] {
  const out: string[] = [];
  const add = (value: string | undefined): void => {
    if (value) out.push(value);
  };
  scanCss(
    text,
    {
      url: add,
      string: (value, _start, _end, direct) => {
        if (direct) add(value);
      },
      atImport: add,
    },
    meter,
  );
  return out;
}

/** White space as JavaScript's `\s` (what a srcset's parts are trimmed and split by). */
function jsSpace(c: number): boolean {
  return (
    c === 0x20 ||
    (c >= 0x09 && c <= 0x0d) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** The candidate URLs of a `srcset` (`url 1x, url 2x`): the first word of each comma-separated part. One pass. */
export function srcsetUrls(value: string, meter: ScanMeter = { steps: 0 }): string[] {
  const out: string[] = [];
  const n = value.length;
  let i = 0;
  const advance = (): void => {
    meter.steps++;
    i++;
  };
  while (i < n) {
    while (i < n && jsSpace(value.charCodeAt(i))) advance();
    const start = i;
    while (i < n && value.charCodeAt(i) !== 0x2c && !jsSpace(value.charCodeAt(i))) advance();
    if (i > start) out.push(value.slice(start, i));
    // The descriptors (`2x`, `100w`) up to the next comma.
    while (i < n && value.charCodeAt(i) !== 0x2c) advance();
    advance();
  }
  return out;
}

/** Longest URL captured, in UTF-8 bytes once resolved: what is fetched, and a key of the replay's map and the run's cache. */
export const MAX_URL_BYTES = 4096;

/**
 * A page's address as a base for relative URLs, at most `MAX_URL_BYTES` long whatever the page's length, so that each
 * resolution reads a bounded base: `href` resolves every reference the full address would to a URL within the
 * limit. `paths`: a path-relative reference (`a.png`, `../a.png`) resolves against it; `queries`: a query-only one
 * (`?v=2`) does. A reference it does not resolve would come out over the limit against the full address.
 */
export interface UrlBase {
  readonly href: string;
  readonly paths: boolean;
  readonly queries: boolean;
}

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

/** The base of the page at `page` (a Meta event's `href`, a stylesheet's URL); undefined when it is no URL. */
export function urlBase(page: string, meter: ScanMeter = { steps: 0 }): UrlBase | undefined {
  meter.steps += page.length;
  let url: URL;
  try {
    url = new URL(page);
  } catch {
    return undefined;
  }
  url.hash = '';
  if (byteLength(url.href) <= MAX_URL_BYTES) return { href: url.href, paths: true, queries: true };
  // Every reference but an empty one (never taken) replaces the query: without it the base resolves the same.
  url.search = '';
  if (byteLength(url.href) <= MAX_URL_BYTES) return { href: url.href, paths: true, queries: true };
  // A long last segment: path-relative references replace it; a query-only one keeps it (over the limit).
  const folder = url.href.slice(0, url.href.lastIndexOf('/') + 1);
  if (byteLength(folder) <= MAX_URL_BYTES) return { href: folder, paths: true, queries: false };
  return { href: `${url.origin}/`, paths: false, queries: false };
}

const ABSOLUTE = /^[a-z][a-z0-9+.-]*:/i;
const SLASH = 0x2f;
const BACKSLASH = 0x5c;
const QUESTION = 0x3f;

/** Whether `ref` (trimmed) resolves against `base` as it would against the full address. */
function resolvesAgainst(ref: string, base: UrlBase): boolean {
  const c = ref.charCodeAt(0);
  if (c === QUESTION) return base.queries;
  return base.paths || ABSOLUTE.test(ref) || c === SLASH || c === BACKSLASH;
}

/** Why a reference gives no URL to capture: not one (`none`), or one over `MAX_URL_BYTES` (`too-long`). */
type Unresolved = 'none' | 'too-long';

/**
 * `raw` resolved against `base`, without its fragment, or why not: it must be http(s), carry no credentials and take
 * at most `MAX_URL_BYTES` once resolved. `meter` counts the characters the URL parser reads.
 */
function resolveAssetRef(
  raw: string,
  base: string | UrlBase | undefined,
  meter: ScanMeter = { steps: 0 },
): string | Unresolved {
  const text = raw.trim();
  if (text.length === 0 || /^(data|blob|javascript|about|#)/i.test(text)) return 'none';
  if (text.length > MAX_URL_BYTES) return 'too-long';
  const from = typeof base === 'string' ? urlBase(base, meter) : base;
  if (from !== undefined && !resolvesAgainst(text, from)) return 'too-long';
  meter.steps += text.length + (from?.href.length ?? 0);
  let url: URL;
  try {
    url = from === undefined ? new URL(text) : new URL(text, from.href);
  } catch {
    return 'none';
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '')
    return 'none';
  url.hash = '';
  return byteLength(url.href) > MAX_URL_BYTES ? 'too-long' : url.href;
}

/** `resolveAssetRef`'s URL, or undefined when there is none to capture. */
export function resolveAssetUrl(raw: string, base: string | UrlBase | undefined): string | undefined {
  const url = resolveAssetRef(raw, base);
  return url === 'none' || url === 'too-long' ? undefined : url;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Bytes any event that references an asset holds; an event without any of them is not parsed. */
const MARKERS = ['"href"', '"src"', 'srcset', '"poster"', 'url(', '@import', '"_cssText"', '"type":4'].map((m) =>
  Buffer.from(m),
);

/**
 * Scans one replay's events for the URLs of its assets. `found(url, base)` is called once per new URL (absolute,
 * without fragment), at most `maxUrls` times; later ones are counted in `dropped`.
 */
export class AssetUrlCollector {
  private page: UrlBase | undefined;
  private readonly seen = new Set<string>();
  private readonly tags = new Map<number, string>();
  /** Ids of `<style>` elements' text nodes (their texts are CSS). */
  private readonly styleTexts = new Set<number>();
  dropped = 0;
  /** References whose URL would take over `MAX_URL_BYTES`: not captured. */
  tooLong = 0;

  /** `meter`: counts the work of the CSS and srcset scans and of resolving URLs (tests bound it). */
  constructor(
    private readonly maxUrls: number,
    private readonly found: (url: string) => void,
    private readonly meter: ScanMeter = { steps: 0 },
  ) {}

  /** Scans one event (compact JSON). */
  observe(event: Buffer): void {
    if (!MARKERS.some((m) => event.indexOf(m) !== -1)) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(event.toString('utf8'));
    } catch {
      return;
    }
    if (!isObject(parsed) || !isObject(parsed.data)) return;
    const data = parsed.data;
    if (parsed.type === 4 && typeof data.href === 'string') this.page = urlBase(data.href, this.meter);
    else if (parsed.type === 2) this.node(data.node, undefined);
    else if (parsed.type === 3) this.incremental(data);
  }

  private incremental(data: Json): void {
    if (data.source === 0) {
      if (Array.isArray(data.adds)) {
        for (const add of data.adds)
          if (isObject(add))
            this.node(add.node, typeof add.parentId === 'number' ? this.tags.get(add.parentId) : undefined);
      }
      if (Array.isArray(data.texts)) {
        for (const t of data.texts)
          if (isObject(t) && typeof t.id === 'number' && this.styleTexts.has(t.id) && typeof t.value === 'string')
            this.css(t.value, this.page);
      }
      if (Array.isArray(data.attributes)) {
        for (const a of data.attributes) {
          if (isObject(a) && typeof a.id === 'number' && isObject(a.attributes))
            this.attributes(this.tags.get(a.id) ?? '', a.attributes, true);
        }
      }
    } else if (data.source === 8) {
      if (Array.isArray(data.adds))
        for (const add of data.adds) if (isObject(add) && typeof add.rule === 'string') this.css(add.rule, this.page);
      for (const text of [data.replace, data.replaceSync]) if (typeof text === 'string') this.css(text, this.page);
    } else if (data.source === 13 && isObject(data.set) && typeof data.set.value === 'string') {
      this.css(data.set.value, this.page);
    }
  }

  private node(node: unknown, parentTag: string | undefined): void {
    // Iterative: a deep document must not exhaust the stack.
    const stack: { node: unknown; parent: string | undefined }[] = [{ node, parent: parentTag }];
    while (stack.length > 0) {
      const { node: n, parent } = stack.pop()!;
      if (!isObject(n)) continue;
      if (n.type === 2) {
        const tag = typeof n.tagName === 'string' ? n.tagName.toLowerCase() : '';
        if (typeof n.id === 'number' && (tag in URL_ATTRIBUTES || tag === 'style') && this.tags.size < MAX_TRACKED_IDS)
          this.tags.set(n.id, tag);
        if (isObject(n.attributes)) this.attributes(tag, n.attributes, false);
        if (Array.isArray(n.childNodes))
          for (let i = n.childNodes.length - 1; i >= 0; i--) stack.push({ node: n.childNodes[i], parent: tag });
      } else if (n.type === 3 && typeof n.textContent === 'string' && (n.isStyle === true || parent === 'style')) {
        if (typeof n.id === 'number' && this.styleTexts.size < MAX_TRACKED_IDS) this.styleTexts.add(n.id);
        this.css(n.textContent, this.page);
      } else if (Array.isArray(n.childNodes)) {
        for (let i = n.childNodes.length - 1; i >= 0; i--) stack.push({ node: n.childNodes[i], parent });
      }
    }
  }

  /** `change`: an attribute mutation (the element's rel is not known then: a link's href counts). */
  private attributes(tag: string, attributes: Json, change: boolean): void {
    const names = URL_ATTRIBUTES[tag];
    const linkOk = tag !== 'link' || change || (typeof attributes.rel === 'string' && LINK_RELS.test(attributes.rel));
    if (names !== undefined && linkOk) {
      for (const name of names) {
        const value = attributes[name];
        if (typeof value !== 'string') continue;
        if (name === 'srcset') for (const u of srcsetUrls(value, this.meter)) this.add(u, this.page);
        else this.add(value, this.page);
      }
    }
    if (typeof attributes._cssText === 'string') this.css(attributes._cssText, this.sheetBase(tag, attributes));
    if (typeof attributes.style === 'string') this.css(attributes.style, this.page);
    else if (isObject(attributes.style)) {
      for (const v of Object.values(attributes.style)) {
        if (typeof v === 'string') this.css(v, this.page);
        else if (Array.isArray(v) && typeof v[0] === 'string') this.css(v[0], this.page);
      }
    }
  }

  /** A `<link>`'s stylesheet resolves its own URLs against its address; anything else against the page's. */
  private sheetBase(tag: string, attributes: Json): UrlBase | undefined {
    if (tag !== 'link' || typeof attributes.href !== 'string') return this.page;
    const href = resolveAssetRef(attributes.href, this.page, this.meter);
    return href === 'none' || href === 'too-long' ? this.page : urlBase(href, this.meter);
  }

  private css(text: string, base: UrlBase | undefined): void {
    for (const raw of cssUrls(text, this.meter)) this.add(raw, base);
  }

  private add(raw: string, base: UrlBase | undefined): void {
    const url = resolveAssetRef(raw, base, this.meter);
    if (url === 'too-long') this.tooLong++;
    if (url === 'none' || url === 'too-long' || this.seen.has(url)) return;
    if (this.seen.size >= this.maxUrls) {
      this.dropped++;
      return;
    }
    this.seen.add(url);
    this.found(url);
  }
}
