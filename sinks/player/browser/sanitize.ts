/**
 * Sanitizing what the Replayer rebuilds: before any event reaches rrweb's Replayer, whatever the recording holds,
 * nothing that could run code, navigate or load from outside is rebuilt (docs/PLAYER.md, "What the recording may not
 * do"). Every path by which rrweb builds a node or sets an attribute starts from an event, and each event is
 * sanitized once.
 */
import { absolute, capturedHref, capturedSheet, haveCapturedAssets, useCaptured } from './captured-assets.js';
import { rewriteCssUrls } from './css-scan.js';
import {
  FULL_SNAPSHOT,
  INCREMENTAL,
  META,
  SOURCE_ADOPTED_STYLE_SHEET,
  SOURCE_CANVAS,
  SOURCE_FONT,
  SOURCE_MUTATION,
  SOURCE_STYLE_DECLARATION,
  SOURCE_STYLE_SHEET_RULE,
  type Json,
} from './events.js';

const URL_ATTRS: Record<string, 1> = {
  href: 1,
  src: 1,
  action: 1,
  formaction: 1,
  'xlink:href': 1,
  data: 1,
  background: 1,
  poster: 1,
  codebase: 1,
  cite: 1,
  ping: 1,
  rr_dataurl: 1,
};
/** Elements whose URL loads a document (which may hold script whatever its type): never rebuilt with one. */
const DOCUMENT_TAGS: Record<string, 1> = {
  iframe: 1,
  frame: 1,
  object: 1,
  embed: 1,
  applet: 1,
  script: 1,
  portal: 1,
  fencedframe: 1,
};

/**
 * Attributes whose value is read as CSS and may name a URL, on every element (an HTML element ignores them): the SVG
 * presentation attributes of the properties whose grammar takes a `<url>` (SVG 2 §6.6 "Presentation attributes";
 * `clip-path` and `mask` from CSS Masking 1, `filter` from Filter Effects 1, `cursor` from CSS UI 4, `fill` and
 * `stroke` from SVG 2 §13 (paint), the markers from SVG 2 §13.7; `marker`, a shorthand, is no presentation attribute
 * but cleaned alike).
 */
const CSS_VALUED: Record<string, 1> = {
  'clip-path': 1,
  cursor: 1,
  fill: 1,
  filter: 1,
  marker: 1,
  'marker-start': 1,
  'marker-mid': 1,
  'marker-end': 1,
  mask: 1,
  stroke: 1,
};
/**
 * What an SVG animation (`<set>`, `<animate>`, `<animateMotion>`, …; SVG 2 §19, SMIL Animation §3.2) sets its
 * attribute to: cleaned as CSS (`url()`), and dropped when it names a URL by a scheme (`http:`, `javascript:`).
 */
const ANIMATION_VALUES: Record<string, 1> = { to: 1, from: 1, by: 1, values: 1 };

/** Whether one of an animation's `;`-separated values starts with a URL scheme, or holds `//`. */
function namesUrl(value: string): boolean {
  return /(^|;)\s*[a-z][a-z0-9+.-]*:/i.test(value) || value.indexOf('//') >= 0;
}

/** rrweb's serialized node types (NodeType) the sanitizer looks at. */
const ELEMENT_NODE = 2;
const TEXT_NODE = 3;

function scriptUrl(value: unknown): boolean {
  return (
    typeof value === 'string' &&
    /^(javascript|vbscript|data:text\/html)/i.test(
      value.replace(/[\u0000-\u0020\u007f-\u009f]+/g, '').replace(/^data:text\/html/i, 'data:text/html'),
    )
  );
}

/** A URL that loads nothing from outside: data: (not HTML) or blob:. */
function localUrl(url: string): boolean {
  return /^\s*(data:|blob:)/i.test(url) && !scriptUrl(url);
}

/** The URLs of a `srcset` (HTML's parsing: a data: URL holds commas; descriptors may hold parentheses). */
function srcsetUrls(value: string): string[] {
  const urls: string[] = [];
  let i = 0;
  while (i < value.length) {
    while (i < value.length && /[\s,]/.test(value[i]!)) i++;
    if (i >= value.length) break;
    let j = i;
    while (j < value.length && !/\s/.test(value[j]!)) j++;
    let end = j;
    while (end > i && value.charCodeAt(end - 1) === 0x2c) end--;
    urls.push(value.slice(i, end));
    const comma = end < j;
    i = j;
    if (comma) continue;
    for (let depth = 0; i < value.length; i++) {
      const c = value[i];
      if (c === '(') depth++;
      else if (c === ')') depth = Math.max(0, depth - 1);
      else if (c === ',' && depth === 0) break;
    }
  }
  return urls;
}

/**
 * Whether an animation (`attributeName`) may not change the attribute it names: one that holds a URL or a script,
 * `style`, or a name with a namespace prefix (`xlink:href`). Dropped, so that `to`/`values` (cleaned as CSS) never
 * reach such an attribute, in whatever order the recording sets them.
 */
function unsafeToAnimate(value: unknown): boolean {
  const n = String(value).trim().toLowerCase();
  return n === 'style' || n === 'attributename' || n.indexOf(':') >= 0 || dropAttribute('', n, 'http://x/');
}

function dropAttribute(tag: string, name: string, value: unknown): boolean {
  const n = String(name).toLowerCase();
  // `attributionsrc` (Attribution Reporting) is a URL fetched in the background.
  if (n.slice(0, 2) === 'on' || n === 'srcdoc' || n === 'rr_src' || n === 'attributionsrc') return true;
  if (n === 'attributename' && unsafeToAnimate(value)) return true;
  // `<use>` renders the document its href names: only a fragment of this one.
  if (tag === 'use' && (n === 'href' || n === 'xlink:href') && !/^\s*#/.test(String(value))) return true;
  // An element of unknown tag (an attribute mutation of a node never seen) may be any of them.
  if (
    (DOCUMENT_TAGS[tag] || !tag) &&
    (n === 'src' || n === 'data' || n === 'code' || n === 'codebase' || n === 'href' || n === 'xlink:href')
  )
    return true;
  if (URL_ATTRS[n] && scriptUrl(value)) return true;
  if (n === 'srcset' || n === 'imagesrcset') return !srcsetUrls(String(value)).every(localUrl);
  if (URL_ATTRS[n] && typeof value === 'string' && value && !/^\s*(data:(?!text\/html)|blob:|#)/i.test(value))
    return true;
  // A data: style sheet (or any other data: link) could @import from outside: links keep data: images only.
  if (tag === 'link' && n === 'href' && typeof value === 'string' && !/^\s*(data:image\/|blob:|#)/i.test(value))
    return true;
  if (tag === 'meta' && (n === 'http-equiv' || n === 'content')) return true;
  if (tag === 'base' && (n === 'href' || n === 'target')) return true;
  if (tag === 'form' && (n === 'action' || n === 'target')) return true;
  if ((tag === 'button' || tag === 'input') && (n === 'formaction' || n === 'formtarget')) return true;
  return false;
}

/** The URL of the page being replayed (the last Meta event's), relative to which recorded URLs resolve. */
let pageBase: string | undefined;

/** `@import`s of captured stylesheets are played this deep (a stylesheet importing itself stops there). */
const IMPORT_DEPTH = 4;

/**
 * CSS may load from outside too: read as the browser reads it (css-scan.ts, one pass), every URL it names — of a
 * `url()`, of a string of `image-set()`, `src()` and the like — that is not data:/blob: (or a captured asset,
 * relative to `base`) is emptied, and every `@import` removed (or, captured, replaced by its stylesheet, cleaned).
 */
function cleanCssText(css: string, base: string | null | undefined, depth: number): string {
  return rewriteCssUrls(css, {
    url(value) {
      if (value === undefined) return null;
      return localUrl(value) ? value : capturedHref(value, base);
    },
    atImport(value) {
      const sheet = depth < IMPORT_DEPTH ? capturedSheet(value, base) : null;
      return sheet === null ? '' : cleanCssText(sheet.css, sheet.url, depth + 1);
    },
  });
}

/**
 * An SVG presentation attribute or animation value, read as CSS on its own: cleaned as CSS, but a fragment-only
 * `url(#id)` is kept — a reference to an element of the same document (a gradient, a clip path, a filter: CSS Values
 * 4 §4.5.1), which loads nothing.
 */
function cleanSvgValue(value: string): string {
  return rewriteCssUrls(value, {
    url(v) {
      if (v === undefined) return null;
      return /^\s*#/.test(v) || localUrl(v) ? v : capturedHref(v, pageBase);
    },
    atImport: () => '',
    joined: false,
  });
}

/** `cleanCssText` of a value that may not be a string (left as it is). */
function cleanCss(text: Json, base?: string | null): Json {
  return typeof text === 'string' ? cleanCssText(text, base || pageBase, 0) : text;
}

/** Canvas drawing commands name images by URL (`drawImage` of an `HTMLImageElement`): only data:/blob: stay. */
function cleanCanvasArgs(value: Json, depth: number): void {
  if (!value || typeof value !== 'object' || depth > 8) return;
  if (typeof value.src === 'string' && !localUrl(value.src)) value.src = '';
  for (const k in value)
    if (Object.hasOwn(value, k) && value[k] && typeof value[k] === 'object') cleanCanvasArgs(value[k], depth + 1);
}

/** Tag name by node id, for attribute mutations (which name only the node). */
const tagById: Record<number, string> = Object.create(null);
/** Ids of the text nodes inside <style> elements, whose text is CSS. */
const styleText: Record<number, 1> = Object.create(null);

function cleanAttributes(tag: string, attributes: Json): void {
  if (!attributes || typeof attributes !== 'object') return;
  if (haveCapturedAssets()) useCaptured(tag, attributes, pageBase);
  // Before the loop, which may drop a link's href.
  const sheetBase =
    tag === 'link' && typeof attributes.href === 'string' ? absolute(attributes.href, pageBase) : pageBase;
  for (const name in attributes) {
    if (!Object.hasOwn(attributes, name)) continue;
    // HTML attribute names are case-insensitive (`STYLE` is style): read lower-cased.
    const n = name.toLowerCase();
    if (dropAttribute(tag, name, attributes[name])) {
      // A link keeps its look (browsers style only <a>/<area> with an href): the replay is inert, '#' goes nowhere.
      if (n === 'href' && (tag === 'a' || tag === 'area')) attributes[name] = '#';
      else delete attributes[name];
    } else if (ANIMATION_VALUES[n] && typeof attributes[name] === 'string' && namesUrl(attributes[name]))
      delete attributes[name];
    else if ((CSS_VALUED[n] || ANIMATION_VALUES[n]) && typeof attributes[name] === 'string')
      attributes[name] = cleanSvgValue(attributes[name]);
    else if (n === 'style' && typeof attributes[name] === 'string') attributes[name] = cleanCss(attributes[name]);
    else if (n === '_csstext') continue;
    else if (attributes[name] && typeof attributes[name] === 'object') {
      // A style attribute recorded as a diff: { property: value | [value, priority] }.
      for (const prop in attributes[name]) {
        const v = attributes[name][prop];
        if (typeof v === 'string') attributes[name][prop] = cleanCss(v);
        else if (Array.isArray(v)) v[0] = cleanCss(v[0]);
      }
    }
  }
  // rrweb's copy of a stylesheet (or the captured one useCaptured put there): CSS relative to the link's URL.
  for (const name in attributes)
    if (Object.hasOwn(attributes, name) && name.toLowerCase() === '_csstext')
      attributes[name] = cleanCss(attributes[name], sheetBase);
}

function cleanNode(node: Json): void {
  if (!node || typeof node !== 'object') return;
  if (node.type === ELEMENT_NODE) {
    const tag = String(node.tagName || '').toLowerCase();
    if (typeof node.id === 'number') tagById[node.id] = tag;
    cleanAttributes(tag, node.attributes);
    if (tag === 'script') node.childNodes = [];
    if (tag === 'style' && Array.isArray(node.childNodes)) {
      for (let k = 0; k < node.childNodes.length; k++)
        if (node.childNodes[k] && typeof node.childNodes[k].id === 'number') styleText[node.childNodes[k].id] = 1;
    }
  }
  if (node.type === TEXT_NODE && (node.isStyle || (typeof node.id === 'number' && styleText[node.id])))
    node.textContent = cleanCss(node.textContent);
  if (Array.isArray(node.childNodes)) for (let i = 0; i < node.childNodes.length; i++) cleanNode(node.childNodes[i]);
}

/** The event, cleaned in place (and returned): what could run code, navigate or load from outside is removed. */
export function sanitize(event: Json): Json {
  if (!event || typeof event !== 'object') return event;
  const data = event.data;
  if (!data || typeof data !== 'object') return event;
  if (event.type === META && typeof data.href === 'string') pageBase = data.href;
  if (event.type === FULL_SNAPSHOT) cleanNode(data.node);
  if (event.type === INCREMENTAL && data.source === SOURCE_MUTATION) {
    if (Array.isArray(data.adds)) {
      // The tags first: a text node may come before its <style> parent in the same mutation.
      for (let i = 0; i < data.adds.length; i++) {
        const node = data.adds[i]?.node;
        if (node && node.type === ELEMENT_NODE && typeof node.id === 'number')
          tagById[node.id] = String(node.tagName || '').toLowerCase();
      }
      for (let i = 0; i < data.adds.length; i++) {
        const add = data.adds[i];
        // Under a <style>, or a parent never seen (rrweb keeps such nodes until their parent comes): read as CSS.
        if (
          add?.node &&
          add.node.type === TEXT_NODE &&
          (tagById[add.parentId] === 'style' || tagById[add.parentId] === undefined)
        )
          styleText[add.node.id] = 1;
        cleanNode(add?.node);
      }
    }
    if (Array.isArray(data.texts))
      for (let t = 0; t < data.texts.length; t++) {
        const x = data.texts[t];
        if (x && styleText[x.id]) x.value = cleanCss(x.value);
      }
    if (Array.isArray(data.attributes))
      for (let j = 0; j < data.attributes.length; j++) {
        const a = data.attributes[j];
        if (a && typeof a === 'object') cleanAttributes(tagById[a.id] || '', a.attributes);
      }
  }
  if (event.type === INCREMENTAL && data.source === SOURCE_STYLE_SHEET_RULE) {
    if (Array.isArray(data.adds))
      for (let r = 0; r < data.adds.length; r++) if (data.adds[r]) data.adds[r].rule = cleanCss(data.adds[r].rule);
    if (typeof data.replace === 'string') data.replace = cleanCss(data.replace);
    if (typeof data.replaceSync === 'string') data.replaceSync = cleanCss(data.replaceSync);
  }
  if (event.type === INCREMENTAL && data.source === SOURCE_STYLE_DECLARATION && data.set)
    data.set.value = cleanCss(data.set.value);
  if (event.type === INCREMENTAL && data.source === SOURCE_ADOPTED_STYLE_SHEET && Array.isArray(data.styles)) {
    for (let a = 0; a < data.styles.length; a++) {
      const rules = data.styles[a]?.rules;
      if (Array.isArray(rules))
        for (let r = 0; r < rules.length; r++) if (rules[r]) rules[r].rule = cleanCss(rules[r].rule);
    }
  }
  // A font given by URL (not as bytes) is CSS src text: `url(…)`.
  if (event.type === INCREMENTAL && data.source === SOURCE_FONT && !data.buffer)
    data.fontSource = cleanCss(data.fontSource);
  if (event.type === INCREMENTAL && data.source === SOURCE_CANVAS) cleanCanvasArgs(data, 0);
  return event;
}
