/**
 * Captured assets (`--capture-assets`): the recorded URLs played from the archive. Before the events are sanitized,
 * the player reads the replay's captured assets (the one-page format's blocks after the events, or, for the shared
 * player, same-origin URLs named by its config), and the sanitizer replaces a captured URL with a data:/blob: one
 * (in CSS too: sanitize.ts reads CSS, these give what a URL or an `@import` is played as).
 */
import type { PlayerConfig } from './config.js';
import type { Json } from './events.js';

// URL (absolute, no fragment) → digest; digest → its data:/blob: URL, its type, a stylesheet's text.
const assetUrls: Record<string, string> = Object.create(null);
const assetHref: Record<string, string> = Object.create(null);
const assetType: Record<string, string> = Object.create(null);
const assetCss: Record<string, string | null> = Object.create(null);
let haveAssets = false;

/** Whether any recorded URL has a captured asset. */
export function haveCapturedAssets(): boolean {
  return haveAssets;
}

/** `raw` as an absolute http(s) URL without fragment (relative to `base`), or null: what captured URLs are keyed by. */
export function absolute(raw: unknown, base: string | null | undefined): string | null {
  if (typeof raw !== 'string') return null;
  const t = raw.trim();
  if (!t || /^(data|blob|javascript|about|#)/i.test(t)) return null;
  let u: URL;
  try {
    u = base ? new URL(t, base) : new URL(t);
  } catch (_e) {
    return null;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password) return null;
  u.hash = '';
  return u.href;
}

/** The data:/blob: URL of a captured asset (not a stylesheet) that `raw` names (relative to `base`), or null. */
export function capturedHref(raw: unknown, base: string | null | undefined): string | null {
  if (!haveAssets) return null;
  const a = absolute(raw, base),
    d = a && assetUrls[a];
  return d && assetType[d] !== 'text/css' ? assetHref[d]! : null;
}

/**
 * The captured stylesheet `raw` names (relative to `base`): its text as captured (its own URLs not yet played:
 * the sanitizer cleans it, relative to `url`), or null when not captured.
 */
export function capturedSheet(raw: unknown, base: string | null | undefined): { css: string; url: string } | null {
  if (!haveAssets) return null;
  const a = absolute(raw, base),
    d = a && assetUrls[a];
  const css = d ? assetCss[d] : undefined;
  return a && typeof css === 'string' ? { css, url: a } : null;
}

function rewriteSrcset(value: unknown, pageBase: string | undefined): string {
  const out: string[] = [];
  String(value)
    .split(',')
    .forEach(function (part) {
      const bits = part.trim().split(/\s+/),
        href = bits[0] && capturedHref(bits[0], pageBase);
      if (href) {
        bits[0] = href;
        out.push(bits.join(' '));
      }
    });
  return out.join(', ');
}

/**
 * Plays the captured assets of one element's attributes: only those the exporter captures for (the same tags); any
 * other URL is still dropped by the sanitizer. `pageBase`: the page's recorded URL.
 */
export function useCaptured(tag: string, attributes: Json, pageBase: string | undefined): void {
  if (tag === 'link' && typeof attributes.href === 'string') {
    if (typeof attributes._cssText === 'string') {
      // rrweb's copy of the stylesheet: cleaned (and its own URLs played) by the sanitizer.
    } else if (/(^|\s)stylesheet(\s|$)/i.test(String(attributes.rel || ''))) {
      // rrweb builds a <style> of a link with _cssText: the stylesheet is played from the archive, never fetched
      // (the sanitizer cleans it, relative to the link's URL).
      const sheet = capturedSheet(attributes.href, pageBase);
      if (sheet !== null) attributes._cssText = sheet.css;
    } else {
      const icon = capturedHref(attributes.href, pageBase);
      if (icon) attributes.href = icon;
    }
  }
  if (tag === 'img' || tag === 'source' || tag === 'input') {
    const src = typeof attributes.src === 'string' && capturedHref(attributes.src, pageBase);
    if (src) attributes.src = src;
    if (typeof attributes.srcset === 'string') attributes.srcset = rewriteSrcset(attributes.srcset, pageBase);
  }
  if (tag === 'video' && typeof attributes.poster === 'string') {
    const poster = capturedHref(attributes.poster, pageBase);
    if (poster) attributes.poster = poster;
  }
}

function setAsset(digest: string, type: string, href: string, css: string | null): void {
  assetHref[digest] = href;
  assetType[digest] = type;
  if (type === 'text/css') assetCss[digest] = css;
}

function mapUrls(urls: Record<string, string>): void {
  for (const url in urls) {
    if (Object.hasOwn(urls, url) && assetHref[urls[url]!] !== undefined) {
      assetUrls[url] = urls[url]!;
      haveAssets = true;
    }
  }
}

const MEDIA_TYPE = /^[a-z0-9.+-]+\/[a-z0-9.+-]+$/;

/** One-page format: the asset blocks after the events (read once the page is parsed, then dropped). */
export function loadPageAssets(): void {
  const block = document.getElementById('replay-assets');
  if (!block) return;
  const map: Json = JSON.parse(block.textContent!);
  block.remove();
  const blocks = document.querySelectorAll('script.replay-asset');
  for (let i = 0; i < blocks.length; i++) {
    const d = blocks[i]!.getAttribute('data-digest')!,
      type: unknown = map.types[d],
      b64 = blocks[i]!.textContent!;
    blocks[i]!.remove();
    if (typeof type !== 'string' || !MEDIA_TYPE.test(type)) continue;
    let css: string | null = null;
    if (type === 'text/css') {
      const bin = atob(b64),
        bytes = new Uint8Array(bin.length);
      for (let k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
      css = new TextDecoder().decode(bytes);
    }
    setAsset(d, type, 'data:' + type + ';base64,' + b64, css);
  }
  mapUrls(map.urls);
}

/** Shared player: the assets the config names, fetched from the same origin as blob: URLs before any event. */
export function loadServedAssets(config: PlayerConfig): Promise<void> {
  const map = config.assets,
    capturedBase = config.capturedBase;
  if (!map || !capturedBase) return Promise.resolve();
  return Promise.all(
    Object.keys(map.types).map(function (d) {
      const type: unknown = map.types[d];
      if (!/^[0-9a-f]{64}$/.test(d) || typeof type !== 'string' || !MEDIA_TYPE.test(type)) return null;
      return fetch(capturedBase + d)
        .then(function (r) {
          if (!r.ok) return;
          return r.blob().then(function (blob) {
            const href = URL.createObjectURL(new Blob([blob], { type: type }));
            if (type !== 'text/css') return setAsset(d, type, href, null);
            return blob.text().then(function (text) {
              setAsset(d, type, href, text);
            });
          });
        })
        .catch(function () {});
    }),
  ).then(function () {
    mapUrls(map.urls);
  });
}
