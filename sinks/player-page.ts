/**
 * The `html` output format: one self-contained page that plays the replay with rrweb's Replayer, offline.
 *
 * The page inlines rrweb's UMD bundle and style sheet (read from the installed `rrweb` package) and the events as a
 * JSON array inside `<script type="application/json">`; it loads nothing from the network. Events are streamed
 * into the page between a head and a tail, so writing it needs no more memory than writing the JSON array.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface PlayerPage {
  /** Everything before the events array's first byte (ends just before `[`). */
  head: Buffer;
  /** Everything after the events array's last byte (starts just after `]`). */
  tail: Buffer;
}

let rrwebAssets: { script: string; style: string } | undefined;

function loadRrwebAssets(): { script: string; style: string } {
  if (rrwebAssets) return rrwebAssets;
  const require = createRequire(import.meta.url);
  const dist = dirname(require.resolve('rrweb'));
  const script = readFileSync(join(dist, 'rrweb.umd.min.cjs'), 'utf8');
  const style = readFileSync(join(dist, 'style.min.css'), 'utf8');
  // Inlined into <script>/<style>: a closing tag inside would end the element early.
  if (/<\/script/i.test(script) || /<\/style/i.test(style)) {
    throw new Error('rrweb bundle contains a closing tag and cannot be inlined');
  }
  rrwebAssets = { script, style };
  return rrwebAssets;
}

function escapeHtmlText(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const PLAYER_SCRIPT = `
(function () {
  var events = JSON.parse(document.getElementById('replay-events').textContent);
  var status = document.getElementById('status');
  if (events.length < 2) { status.textContent = 'This replay has ' + events.length + ' event(s): nothing to play.'; return; }
  var replayer = new rrweb.Replayer(events, {
    root: document.getElementById('stage'),
    UNSAFE_replayCanvas: true,
    mouseTail: false,
    showWarning: false
  });
  var meta = replayer.getMetaData();
  var seek = document.getElementById('seek');
  var play = document.getElementById('play');
  var speed = document.getElementById('speed');
  seek.max = String(meta.totalTime);
  var playing = false;
  function fmt(ms) { var s = Math.floor(ms / 1000); return Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0'); }
  function show() {
    var t = Math.min(replayer.getCurrentTime(), meta.totalTime);
    seek.value = String(t);
    status.textContent = fmt(t) + ' / ' + fmt(meta.totalTime) + ' · ' + events.length + ' events';
  }
  function setPlaying(p) { playing = p; play.textContent = p ? 'Pause' : 'Play'; }
  play.onclick = function () {
    if (playing) { replayer.pause(); setPlaying(false); }
    else { replayer.play(replayer.getCurrentTime() >= meta.totalTime ? 0 : replayer.getCurrentTime()); setPlaying(true); }
  };
  seek.oninput = function () { var t = Number(seek.value); if (playing) replayer.play(t); else replayer.pause(t); show(); };
  speed.onchange = function () { replayer.setConfig({ speed: Number(speed.value) }); };
  replayer.on('finish', function () { setPlaying(false); document.body.setAttribute('data-finished', 'true'); show(); });
  setInterval(show, 250);
  window.replayer = replayer;
  document.body.setAttribute('data-ready', 'true');
  if (!/[?&]paused\\b/.test(location.search)) { replayer.play(); setPlaying(true); }
  show();
})();
`;

/** The page around the events array; `title` is shown in the page (HTML-escaped). */
export function playerPage(title: string): PlayerPage {
  const { script, style } = loadRrwebAssets();
  const head =
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    `<title>${escapeHtmlText(title)}</title>` +
    `<style>${style}</style>` +
    '<style>body{margin:0;font:14px system-ui,sans-serif;background:#f4f4f5}' +
    '#bar{display:flex;gap:8px;align-items:center;padding:8px;background:#18181b;color:#fafafa}' +
    '#seek{flex:1}#stage{padding:8px}</style></head><body>' +
    `<div id="bar"><button id="play">Play</button><input id="seek" type="range" min="0" value="0">` +
    '<select id="speed"><option value="1">1×</option><option value="2">2×</option><option value="4">4×</option>' +
    `<option value="8">8×</option></select><span id="status"></span><span>${escapeHtmlText(title)}</span></div>` +
    '<div id="stage"></div>' +
    `<script>${script}</script>\n` +
    '<script id="replay-events" type="application/json">';
  const tail = `</script>\n<script>${PLAYER_SCRIPT}</script></body></html>\n`;
  return { head: Buffer.from(head, 'utf8'), tail: Buffer.from(tail, 'utf8') };
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
