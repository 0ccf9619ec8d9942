/**
 * The `html` output format: one self-contained page that plays the replay with rrweb's Replayer, offline.
 *
 * The page inlines rrweb's UMD bundle and style sheet (the copies in vendor/rrweb/, shipped with the package), the player, and the
 * events as JSON arrays in a row of `<script type="application/json" class="replay-events">` blocks of about
 * `PAGE_BLOCK_BYTES` each, every block followed by a one-call script that hands it to the player: the browser runs
 * those as it parses the page, so the first frame shows once the first blocks are read, not after the whole file.
 * It loads nothing from the network. Events are streamed into the page between a head and a tail, so writing it
 * needs no more memory than writing the JSON array.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InternalError } from '../src/errors.js';
import { packageRoot } from '../src/util/package-root.js';
import type { ReplayAssets } from './assets.js';
import { PLAYER_SCRIPT } from './player/player-script.js';

export interface PlayerPage {
  /** Everything before the first block's array (ends just before its `[`). */
  head: Buffer;
  /** Between two blocks, in place of a `,` between two events: `]`, the hand-over, the next block's opening `[`. */
  between: Buffer;
  /** Everything after the last block's array (starts just after its `]`): `close` then `end`. */
  tail: Buffer;
  /** The start of `tail`: the last block's end and hand-over. */
  close: Buffer;
  /** The rest of `tail` (`</body></html>`): the captured assets' blocks go between `close` and it. */
  end: Buffer;
}

/**
 * The player's options, named like rrweb-player's props; each is checked in the page (a size is clamped to
 * 100–10,000 px, a speed taken to the menu's nearest: 0.5, 1, 2, 4, 8, 16), and the page's URL parameters
 * (`?width=`, `?height=`, `?speed=`, `?autoplay=0`, `?controls=0`, `?skip=0`) override them. docs/PLAYER.md.
 */
export interface PlayerOptions {
  /** The replay area's width and height in CSS px (the replay fitted inside); default: the window's room. */
  width?: number | undefined;
  height?: number | undefined;
  /** Start playing once loaded (default true). */
  autoPlay?: boolean | undefined;
  /** Default 1. */
  speed?: number | undefined;
  /** The bar, the timeline and the side panel (default true); the keyboard and `window.player` work without. */
  showController?: boolean | undefined;
  /** Skip inactive periods (default true). */
  skipInactive?: boolean | undefined;
}

/** Only the options the player reads, so that the page holds nothing else. */
function knownOptions(options: PlayerOptions): PlayerOptions {
  const { width, height, autoPlay, speed, showController, skipInactive } = options;
  return { width, height, autoPlay, speed, showController, skipInactive };
}

/** Event bytes per block of the page (a block holds whole events: one larger than this is a block alone). */
export const PAGE_BLOCK_BYTES = 1 << 20;
/** The script after each block: the player takes the blocks parsed so far (the CSP allows it by its hash). */
const TAKE_BLOCKS = 'replayTakeBlocks()';
const BLOCK_OPEN = '<script type="application/json" class="replay-events">';

let rrwebAssets: { script: string; style: string } | undefined;

function loadRrwebAssets(): { script: string; style: string } {
  if (rrwebAssets) return rrwebAssets;
  // rrweb's files ship with the package (scripts/vendor-rrweb.mjs): rrweb itself and its dependencies are ~13 MB.
  const dist = join(packageRoot(), 'vendor', 'rrweb');
  const script = readFileSync(join(dist, 'rrweb.umd.min.cjs'), 'utf8');
  const style = readFileSync(join(dist, 'style.min.css'), 'utf8');
  // Inlined into <script>/<style>: a closing tag inside would end the element early.
  if (/<\/script/i.test(script) || /<\/style/i.test(style)) {
    throw new InternalError('rrweb bundle contains a closing tag and cannot be inlined');
  }
  rrwebAssets = { script, style };
  return rrwebAssets;
}

function escapeHtmlText(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The player's look: one type scale (12/14 px), light and dark following the system, controls with an icon and a
 * label; from 360 px to 4K nothing scrolls sideways: the bar wraps, and below 720 px the side list goes under the
 * replay.
 */
const STYLE =
  ':root{color-scheme:light dark;--bg:#f4f4f5;--fg:#18181b;--muted:#52525b;--hover:#e4e4e7;--err:#b91c1c}' +
  '@media (prefers-color-scheme:dark){:root{--bg:#09090b;--fg:#e4e4e7;--muted:#a1a1aa;--hover:#27272a;--err:#f87171}}' +
  'html,body{overflow-x:hidden}body{margin:0;font:14px/1.4 system-ui,sans-serif;background:var(--bg);color:var(--fg)}' +
  '#top{position:sticky;top:0;z-index:2;background:#18181b;color:#fafafa}' +
  '#bar{display:flex;flex-wrap:wrap;gap:6px 8px;align-items:center;padding:8px 8px 4px}#bar label{white-space:nowrap}' +
  '#bar button,#bar select{font:inherit;padding:2px 8px;border:1px solid #52525b;border-radius:4px;background:#27272a;color:#fafafa}' +
  '#play::before{content:"\\25B6\\FE0E  "}#play[data-playing]::before{content:"\\275A\\275A  "}#fullscreen::before{content:"\\25A1  "}' +
  '#seek{flex:1 1 160px;min-width:120px}#status{font-variant-numeric:tabular-nums;white-space:nowrap}' +
  '#title{flex:1 1 0;min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;color:#a1a1aa}' +
  '#timeline{position:relative;height:12px;margin:0 8px 4px;background:#3f3f46;cursor:pointer}' +
  '#timeline .idle{position:absolute;top:0;bottom:0;background:repeating-linear-gradient(45deg,#52525b 0 4px,#3f3f46 4px 8px)}' +
  '#timeline .mark{position:absolute;top:1px;width:4px;height:10px;margin-left:-2px;padding:0;border:0;background:#a1a1aa}' +
  '.mark.click{background:#60a5fa}.mark.page{background:#34d399}.mark.custom{background:#fbbf24}.mark.error{background:#f87171}' +
  '#info{padding:0 8px 6px;font-size:12px;color:#d4d4d8;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}' +
  '#view{display:flex;align-items:flex-start;min-width:0}#stage{flex:1;min-width:0;max-width:calc(100% - 16px);margin:8px;overflow:hidden}' +
  'body[data-no-controls] #top,body[data-no-controls] #side{display:none}' +
  '#stage iframe{pointer-events:none}#loading{padding:8px}' +
  '#side{flex:0 0 230px;max-height:calc(100vh - 110px);overflow:auto;margin:8px 8px 8px 0;font-size:12px}' +
  '#back{color:#93c5fd;white-space:nowrap}#tabs{display:flex;gap:2px;margin-bottom:4px}#tabs button{font:inherit;flex:1;border:0;border-bottom:2px solid transparent;background:none;color:inherit;padding:2px;cursor:pointer}' +
  '#tabs button[aria-selected=true]{border-bottom-color:#60a5fa;font-weight:600}.filters{display:flex;gap:4px;margin-bottom:4px}' +
  '.filters input{flex:1;min-width:0;font:inherit}#moment{color:#93c5fd;font-size:12px;white-space:nowrap}' +
  '#inspector{margin:4px 0 0;max-height:30vh;overflow:auto;white-space:pre-wrap;word-break:break-all;font-size:12px}#inspector:empty{display:none}' +
  '#side ol{list-style:none;margin:0;padding:0}#side li.empty{padding:2px 4px;color:var(--muted)}#side ol button.current{background:var(--hover);font-weight:600}' +
  '#console .warn{color:#b45309}#console .error,#network .error{color:var(--err)}' +
  '#timeline .playhead{position:absolute;top:-2px;bottom:-2px;width:2px;margin-left:-1px;background:#fafafa;pointer-events:none}' +
  '#timeline .density{position:absolute;bottom:0;background:#71717a;pointer-events:none}' +
  '#markers{list-style:none;margin:0;padding:0}#side ol button{display:block;width:100%;text-align:left;border:0;' +
  'background:none;color:inherit;font:inherit;padding:2px 4px;cursor:pointer;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}' +
  '#side ol button:hover{background:var(--hover)}#markers .error{color:var(--err)}' +
  '@media (max-width:720px){#view{flex-direction:column;align-items:stretch}#stage{flex:none}#side{flex:none;max-height:40vh;margin:0 8px 8px}' +
  '#title{flex-basis:100%;order:9}}';

function sha256Source(source: string): string {
  return `'sha256-${createHash('sha256').update(source, 'utf8').digest('base64')}'`;
}

/** The controls and stage, the same for the one-page format and the shared player (with `back`: a link back to it). */
function body(title: string, back?: string): string {
  return (
    '<div id="top"><div id="bar">' +
    (back !== undefined ? `<a id="back" href="${escapeHtmlText(back)}">← replays</a>` : '') +
    '<button id="play" disabled>Play</button><input id="seek" type="range" min="0" value="0" aria-label="time">' +
    '<select id="speed" aria-label="speed"><option value="0.5">0.5×</option><option value="1" selected>1×</option>' +
    '<option value="2">2×</option><option value="4">4×</option><option value="8">8×</option>' +
    '<option value="16">16×</option></select><label><input id="skip" type="checkbox" checked> skip inactivity</label>' +
    `<button id="fullscreen" title="F">Fullscreen</button><span id="status"></span><a id="moment" href="?t=0">link to 0:00:00</a><span id="title">${escapeHtmlText(title)}</span></div>` +
    '<div id="timeline" title="markers: clicks, pages, custom events, errors; shaded: inactive"></div><div id="info"></div></div>' +
    '<div id="loading" role="status">Loading the replay…</div>' +
    '<div id="view"><div id="stage" inert></div><aside id="side"><div id="tabs" role="tablist">' +
    '<button role="tab" data-panel="markers-panel" aria-selected="true">Markers</button><button role="tab" data-panel="console-panel" aria-selected="false">Console</button>' +
    '<button role="tab" data-panel="network-panel" aria-selected="false">Network</button><button role="tab" data-panel="events-panel" aria-selected="false">Events</button></div>' +
    '<div id="markers-panel"><ol id="markers"></ol></div>' +
    '<div id="console-panel" hidden><div class="filters"><select id="console-level" aria-label="console level"></select>' +
    '<input id="console-filter" type="search" placeholder="filter" aria-label="filter console"></div><ol id="console"></ol></div>' +
    '<div id="network-panel" hidden><ol id="network"></ol></div><div id="events-panel" hidden><ol id="custom"></ol></div>' +
    '<pre id="inspector" aria-label="payload"></pre></aside></div>'
  );
}

/** Settings read by the browser code; JSON inside a data block, escaped like the events. */
function configBlock(config: {
  eventsUrl?: string;
  assets?: ReplayAssets;
  capturedBase?: string;
  options?: PlayerOptions;
}): string {
  return `<script id="player-config" type="application/json">${JSON.stringify(config).replace(/</g, '\\u003c')}</script>`;
}

/**
 * The one-page policy: scripts only the page's own inline scripts (by hash), styles inline, images, fonts and
 * media only from data:/blob: (canvas frames), nothing else: no fetch, frame, form target or base.
 */
function pageCsp(scripts: string[]): string {
  return (
    `default-src 'none'; script-src ${scripts.map(sha256Source).join(' ')}; style-src 'unsafe-inline'; ` +
    "img-src data: blob:; font-src data: blob:; media-src data: blob:; base-uri 'none'; form-action 'none'"
  );
}

/** The page around the events array; `title` is shown in the page (HTML-escaped). */
export function playerPage(title: string, options?: PlayerOptions): PlayerPage {
  const { script, style } = loadRrwebAssets();
  const head =
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="${pageCsp([script, PLAYER_SCRIPT, TAKE_BLOCKS])}">` +
    `<title>${escapeHtmlText(title)}</title>` +
    `<style>${style}</style><style>${STYLE}</style></head><body>` +
    body(title) +
    configBlock(options !== undefined ? { options: knownOptions(options) } : {}) +
    `<script>${script}</script>\n<script>${PLAYER_SCRIPT}</script>\n` +
    BLOCK_OPEN;
  const close = `</script><script>${TAKE_BLOCKS}</script>\n`;
  return {
    head: Buffer.from(head, 'utf8'),
    between: Buffer.from(`]${close}${BLOCK_OPEN}[`, 'utf8'),
    tail: Buffer.from(`${close}</body></html>\n`, 'utf8'),
    close: Buffer.from(close, 'utf8'),
    end: Buffer.from('</body></html>\n', 'utf8'),
  };
}

/** The files of the shared player, served same-origin under the `assetBase` given to {@link playerShell}. */
export function playerAssets(): { files: Record<string, { body: Buffer; type: string }> } {
  const { script, style } = loadRrwebAssets();
  return {
    files: {
      'rrweb.js': { body: Buffer.from(script, 'utf8'), type: 'text/javascript; charset=utf-8' },
      'player.js': { body: Buffer.from(PLAYER_SCRIPT, 'utf8'), type: 'text/javascript; charset=utf-8' },
      'player.css': { body: Buffer.from(style + STYLE, 'utf8'), type: 'text/css; charset=utf-8' },
    },
  };
}

/**
 * An HTML document that plays one replay with the shared player: assets from `assetBase` (same origin), events
 * streamed from `eventsUrl` as NDJSON. Scripts only from 'self', fetches only to 'self'. With `captured`, the
 * replay's captured assets are fetched from `captured.base` + digest (same origin) and played instead of their URLs;
 * with `back`, the bar links back there (the archive's index); `player`: the player's options.
 */
export function playerShell(options: {
  title: string;
  eventsUrl: string;
  assetBase: string;
  captured?: { assets: ReplayAssets; base: string };
  back?: string;
  player?: PlayerOptions;
}): string {
  const base = options.assetBase.endsWith('/') ? options.assetBase : `${options.assetBase}/`;
  const csp =
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; " +
    "img-src data: blob:; font-src data: blob:; media-src data: blob:; base-uri 'none'; form-action 'none'";
  return (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="${csp}">` +
    `<title>${escapeHtmlText(options.title)}</title>` +
    `<link rel="stylesheet" href="${escapeHtmlText(base)}player.css"></head><body>` +
    body(options.title, options.back) +
    configBlock({
      eventsUrl: options.eventsUrl,
      ...(options.captured !== undefined
        ? { assets: options.captured.assets, capturedBase: options.captured.base }
        : {}),
      ...(options.player !== undefined ? { options: knownOptions(options.player) } : {}),
    }) +
    `<script src="${escapeHtmlText(base)}rrweb.js"></script>` +
    `<script src="${escapeHtmlText(base)}player.js"></script></body></html>\n`
  );
}

const LT = 0x3c;
const ESCAPED_LT = Buffer.from('\\u003c', 'latin1');

/**
 * Makes one event's JSON safe inside `<script type="application/json">`: in JSON, `<` can only occur inside a
 * string, where `\u003c` means the same character, so `</script>` can never close the element early.
 */
export function escapeForScript(json: Buffer): Buffer {
  let at = json.indexOf(LT);
  if (at < 0) return json;
  const parts: Buffer[] = [];
  let from = 0;
  while (at >= 0) {
    parts.push(json.subarray(from, at), ESCAPED_LT);
    from = at + 1;
    at = json.indexOf(LT, from);
  }
  parts.push(json.subarray(from));
  return Buffer.concat(parts);
}
