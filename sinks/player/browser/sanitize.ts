/**
 * Sanitizing what the Replayer rebuilds: before any event reaches rrweb's Replayer, whatever the recording holds,
 * nothing that could run code, navigate or load from outside is rebuilt (docs/PLAYER.md, "What the recording may not
 * do"). Every path by which rrweb builds a node or sets an attribute starts from an event, and each event is
 * sanitized once.
 */
import { absolute, haveCapturedAssets, rewriteCss, useCaptured } from './captured-assets.js';
import { FULL_SNAPSHOT, INCREMENTAL, META, SOURCE_MUTATION, SOURCE_STYLE_DECLARATION, SOURCE_STYLE_SHEET_RULE, type Json } from './events.js';

const URL_ATTRS: Record<string, 1> = { href: 1, src: 1, action: 1, formaction: 1, 'xlink:href': 1, data: 1, background: 1, poster: 1, codebase: 1, cite: 1, ping: 1 };

/** rrweb's serialized node types (NodeType) the sanitizer looks at. */
const ELEMENT_NODE = 2;
const TEXT_NODE = 3;

function scriptUrl(value: unknown): boolean {
  return (
    typeof value === 'string' &&
    /^(javascript|vbscript|data:text\/html)/i.test(value.replace(/[\u0000-\u0020\u007f-\u009f]+/g, '').replace(/^data:text\/html/i, 'data:text/html'))
  );
}

function dropAttribute(tag: string, name: string, value: unknown): boolean {
  const n = String(name).toLowerCase();
  if (n.slice(0, 2) === 'on' || n === 'srcdoc') return true;
  if (URL_ATTRS[n] && scriptUrl(value)) return true;
  if (n === 'srcset' || n === 'imagesrcset') return !/^\s*(data|blob):/i.test(String(value));
  if (URL_ATTRS[n] && typeof value === 'string' && value && !/^\s*(data:(?!text\/html)|blob:|#)/i.test(value)) return true;
  if (tag === 'meta' && (n === 'http-equiv' || n === 'content')) return true;
  if (tag === 'base' && (n === 'href' || n === 'target')) return true;
  if (tag === 'form' && (n === 'action' || n === 'target')) return true;
  if ((tag === 'button' || tag === 'input') && (n === 'formaction' || n === 'formtarget')) return true;
  if ((tag === 'object' || tag === 'embed' || tag === 'applet') && (n === 'data' || n === 'src' || n === 'code' || n === 'codebase')) return true;
  return false;
}

/** The URL of the page being replayed (the last Meta event's), relative to which recorded URLs resolve. */
let pageBase: string | undefined;

/** CSS may load from outside too: every url() that is not data:/blob: (or a captured asset) is emptied. */
function cleanCss(text: Json, base?: string | null): Json {
  if (typeof text !== 'string' || !/url\s*\(|@import/i.test(text)) return text;
  if (haveCapturedAssets()) return rewriteCss(text, base || pageBase, 0);
  return text.replace(/url\s*\(\s*(['"]?)(?!\s*(data:|blob:))[^)]*\)/gi, 'url()').replace(/@import[^;]*;?/gi, '');
}

/** Tag name by node id, for attribute mutations (which name only the node). */
const tagById: Record<number, string> = Object.create(null);
/** Ids of the text nodes inside <style> elements, whose text is CSS. */
const styleText: Record<number, 1> = Object.create(null);

function cleanAttributes(tag: string, attributes: Json): void {
  if (!attributes || typeof attributes !== 'object') return;
  if (haveCapturedAssets()) useCaptured(tag, attributes, pageBase);
  for (const name in attributes) {
    if (!Object.prototype.hasOwnProperty.call(attributes, name)) continue;
    if (dropAttribute(tag, name, attributes[name])) {
      // A link keeps its look (browsers style only <a>/<area> with an href): the replay is inert, '#' goes nowhere.
      if (name === 'href' && (tag === 'a' || tag === 'area')) attributes[name] = '#';
      else delete attributes[name];
    }
    else if (name === 'style') attributes[name] = cleanCss(attributes[name]);
    else if (name === '_cssText')
      attributes[name] = cleanCss(attributes[name], tag === 'link' && typeof attributes.href === 'string' ? absolute(attributes.href, pageBase) : pageBase);
    else if (attributes[name] && typeof attributes[name] === 'object') {
      // A style attribute recorded as a diff: { property: value | [value, priority] }.
      for (const prop in attributes[name]) {
        const v = attributes[name][prop];
        if (typeof v === 'string') attributes[name][prop] = cleanCss(v);
        else if (Array.isArray(v)) v[0] = cleanCss(v[0]);
      }
    }
  }
}

function cleanNode(node: Json): void {
  if (!node || typeof node !== 'object') return;
  if (node.type === ELEMENT_NODE) {
    const tag = String(node.tagName || '').toLowerCase();
    if (typeof node.id === 'number') tagById[node.id] = tag;
    cleanAttributes(tag, node.attributes);
    if (tag === 'script') node.childNodes = [];
    if (tag === 'style' && Array.isArray(node.childNodes)) {
      for (let k = 0; k < node.childNodes.length; k++) if (node.childNodes[k] && typeof node.childNodes[k].id === 'number') styleText[node.childNodes[k].id] = 1;
    }
  }
  if (node.type === TEXT_NODE && (node.isStyle || (typeof node.id === 'number' && styleText[node.id]))) node.textContent = cleanCss(node.textContent);
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
    if (Array.isArray(data.adds))
      for (let i = 0; i < data.adds.length; i++) {
        const add = data.adds[i];
        if (add && add.node && add.node.type === TEXT_NODE && tagById[add.parentId] === 'style') styleText[add.node.id] = 1;
        cleanNode(add && add.node);
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
    if (Array.isArray(data.adds)) for (let r = 0; r < data.adds.length; r++) if (data.adds[r]) data.adds[r].rule = cleanCss(data.adds[r].rule);
    if (typeof data.replace === 'string') data.replace = cleanCss(data.replace);
    if (typeof data.replaceSync === 'string') data.replaceSync = cleanCss(data.replaceSync);
  }
  if (event.type === INCREMENTAL && data.source === SOURCE_STYLE_DECLARATION && data.set) data.set.value = cleanCss(data.set.value);
  return event;
}
