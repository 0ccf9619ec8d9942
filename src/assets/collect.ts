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
const MAX_URL_LENGTH = 4096;

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

/**
 * `raw` resolved against `base`, without its fragment; undefined unless it is http(s), carries no credentials and is
 * not absurdly long (what is fetched, and the key of the replay's URL map).
 */
export function resolveAssetUrl(raw: string, base: string | undefined): string | undefined {
  const text = raw.trim();
  if (text.length === 0 || text.length > MAX_URL_LENGTH || /^(data|blob|javascript|about|#)/i.test(text))
    return undefined;
  let url: URL;
  try {
    url = base === undefined ? new URL(text) : new URL(text, base);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '')
    return undefined;
  url.hash = '';
  return url.href;
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
  private page: string | undefined;
  private readonly seen = new Set<string>();
  private readonly tags = new Map<number, string>();
  /** Ids of `<style>` elements' text nodes (their texts are CSS). */
  private readonly styleTexts = new Set<number>();
  dropped = 0;

  /** `meter`: counts the work of the CSS and srcset scans (tests bound it). */
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
    if (parsed.type === 4 && typeof data.href === 'string') this.page = data.href;
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
    const href =
      tag === 'link' && typeof attributes.href === 'string' ? resolveAssetUrl(attributes.href, this.page) : undefined;
    if (typeof attributes._cssText === 'string') this.css(attributes._cssText, href ?? this.page);
    if (typeof attributes.style === 'string') this.css(attributes.style, this.page);
    else if (isObject(attributes.style)) {
      for (const v of Object.values(attributes.style)) {
        if (typeof v === 'string') this.css(v, this.page);
        else if (Array.isArray(v) && typeof v[0] === 'string') this.css(v[0], this.page);
      }
    }
  }

  private css(text: string, base: string | undefined): void {
    for (const raw of cssUrls(text, this.meter)) this.add(raw, base);
  }

  private add(raw: string, base: string | undefined): void {
    const url = resolveAssetUrl(raw, base);
    if (url === undefined || this.seen.has(url)) return;
    if (this.seen.size >= this.maxUrls) {
      this.dropped++;
      return;
    }
    this.seen.add(url);
    this.found(url);
  }
}
