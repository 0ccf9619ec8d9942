/**
 * The player: rrweb's Replayer over the sanitized events, play/pause, seek, speed, skip inactivity, the status line
 * and the timeline, with the replay kept from ever taking the viewer's keyboard; the same acts for `window.player`
 * (api.ts), with its events. The events come from main.ts; the options (size, speed, autoplay, controls, skip
 * inactivity) from options.ts.
 */
import type { Replayer } from 'rrweb';
import { emit, installApi } from './api.js';
import { addLast, feedCanvas, isWindowed, offerLate, setWindowed, windowAt } from './canvas-window.js';
import { describe, fit, installControls, toggleFullscreen } from './controls.js';
import { ui } from './dom.js';
import { buildsCanvas, isCanvasEvent, type Json, type ReplayEvent } from './events.js';
import { fmt } from './format.js';
import { options, sizeOf, speedOf } from './options.js';
import { drawPanels, installPanels } from './panels.js';
import { drawTimeline, followPosition, IDLE_MS } from './timeline.js';
import { skipUnappliable } from './skipped.js';

let replayer: Replayer | null = null,
  meta: ReturnType<Replayer['getMetaData']> = { startTime: 0, endTime: 0, totalTime: 0 },
  playing = false,
  count = 0;
/** Every event taken so far, sanitized; whether one is a canvas frame. */
const all: ReplayEvent[] = [];
let hasCanvas = false;
/** Whether an event builds a `<canvas>` (it is drawn only in a frame where scripting is on: see create()). */
let buildsCanvasElement = false;
window.replayEvents = all; // read by tests and tools
/** The event count the timeline was last drawn for, and when; whether every event is in. */
let drawn = -1,
  drawnAt = 0,
  loaded = false;
/** The position last told to `window.player`'s listeners. */
let told = -1;

/** Whether the Replayer has started (events taken after that are added to it). */
export function started(): boolean {
  return replayer !== null;
}

/** The position in ms from the start, within the replay (with a Replayer). */
function now(): number {
  return Math.max(0, Math.min(replayer!.getCurrentTime(), meta.totalTime));
}

function canvasAll(): boolean {
  return /[?&]canvas=all\b/.test(location.search);
}

export function show(): void {
  if (!replayer) return;
  meta = replayer.getMetaData();
  ui.seek.max = String(meta.totalTime);
  const t = now();
  ui.seek.value = String(t);
  ui.status.textContent = fmt(t) + ' / ' + fmt(meta.totalTime) + ' · ' + count + ' events';
  ui.info.textContent = describe(all, t);
  const seconds = Math.floor(t / 1000);
  ui.moment.href = '?t=' + seconds;
  ui.moment.textContent = 'link to ' + fmt(t);
  if (drawn !== count && (loaded || Date.now() - drawnAt > 2000)) {
    drawn = count;
    drawnAt = Date.now();
    drawTimeline(all, meta.totalTime, goTo);
    drawPanels(all, goTo);
  }
  followPosition(t, meta.totalTime);
  if (t !== told) {
    told = t;
    emit('ui-update-current-time', t);
    emit('ui-update-progress', meta.totalTime > 0 ? t / meta.totalTime : 0);
  }
}

function setPlaying(p: boolean): void {
  const changed = p !== playing;
  playing = p;
  ui.play.textContent = p ? 'Pause' : 'Play';
  ui.play.toggleAttribute('data-playing', p);
  if (changed) emit('ui-update-player-state', p ? 'playing' : 'paused');
}

/** Play from the position (from the start once at the end), or pause. */
function playPause(play: boolean): void {
  if (!replayer || play === playing) return;
  if (!play) {
    replayer.pause();
    setPlaying(false);
  } else if (now() >= meta.totalTime) {
    setPlaying(true);
    goTo(0);
  } else {
    // Opened paused, the window ahead may not be in yet (feedCanvas runs 4 times a second).
    if (isWindowed()) feedCanvas(replayer, all, now());
    replayer.play(now());
    setPlaying(true);
  }
  show();
}

function setSpeed(speed: number): void {
  const v = speedOf(speed);
  if (v === undefined) return;
  options.speed = v;
  ui.speed.value = String(v);
  if (replayer) replayer.setConfig({ speed: v });
}

function setSkip(skip: boolean): void {
  options.skipInactive = skip;
  ui.skip.checked = skip;
  if (replayer) replayer.setConfig({ skipInactive: skip });
}

function keepFocusOut(): void {
  // The replayed document must never take the viewer's keyboard: the stage is inert and focus is taken back.
  const frame = ui.stage.querySelector('iframe');
  if (frame) {
    frame.setAttribute('tabindex', '-1');
    frame.setAttribute('inert', '');
  }
  const active = document.activeElement as HTMLElement | null;
  if (active && (active === frame || ui.stage.contains(active))) {
    active.blur();
    ui.play.focus();
  }
}

function goTo(t: number): void {
  if (isWindowed()) {
    // A fresh Replayer at the target, with the canvas frames of its window (this also draws a canvas right after
    // a backward seek, which rrweb leaves blank once later frames were drawn: issue #15, defect 4).
    replayer!.destroy();
    create(windowAt(all, t));
    if (playing) replayer!.play(t);
    else replayer!.pause(t);
  } else if (playing) {
    replayer!.play(t);
  } else {
    replayer!.pause(t);
  }
  if (!playing) settleCanvas(t);
  show();
}

// rrweb draws the canvas frames of a seek asynchronously, each once its image is decoded, so under load an older
// frame can land last. Once its own decoding ahead has finished, the frames are drawn in order: the paused seek
// of a canvas replay is applied again a few times (while it stays paused there).
let settleTimers: ReturnType<typeof setTimeout>[] = [];
function settleCanvas(t: number): void {
  for (let i = 0; i < settleTimers.length; i++) clearTimeout(settleTimers[i]);
  settleTimers = [];
  if (!hasCanvas) return;
  [300, 1200, 3000].forEach(function (ms) {
    settleTimers.push(
      setTimeout(function () {
        if (!playing && replayer && Math.abs(now() - t) < 1) replayer.pause(t);
      }, ms),
    );
  });
}

function remember(events: readonly ReplayEvent[]): void {
  for (let i = 0; i < events.length; i++) {
    all.push(events[i]!);
    if (!hasCanvas && isCanvasEvent(events[i])) hasCanvas = true;
    if (!buildsCanvasElement && buildsCanvas(events[i])) buildsCanvasElement = true;
  }
}

function fitNow(): void {
  fit(replayer);
}

function create(events: ReplayEvent[]): void {
  // The replay iframe is sandboxed without allow-scripts unless the replay has a canvas. A `<canvas>` in a document
  // whose scripting is off shows its fallback content, not its bitmap (HTML: "when scripting is disabled, the canvas
  // represents its fallback content"), so a canvas replay in a script-less frame is blank: rrweb then adds
  // allow-scripts (UNSAFE_replayCanvas). No recorded script runs even so: the sanitizer removes every script and
  // handler, and the frame inherits the page's CSP, which runs only the player's own (docs/PLAYER.md, tested with
  // allow-scripts given to the frame). rrweb draws the frames from the player's script; for a replay whose canvas
  // events come after its start, canvas replay is switched on when they do.
  const scripted = hasCanvas || buildsCanvasElement;
  const r = new rrweb.Replayer(events as Json[], {
    root: ui.stage,
    UNSAFE_replayCanvas: scripted,
    mouseTail: false,
    showWarning: false,
    triggerFocus: false,
    skipInactive: options.skipInactive,
    speed: options.speed,
    inactivePeriodThreshold: IDLE_MS,
  });
  skipUnappliable(r as unknown as Json);
  replayer = r;
  if (hasCanvas) r.setConfig({ UNSAFE_replayCanvas: true });
  r.on('resize', function () {
    setTimeout(fitNow, 0);
  });
  setTimeout(fitNow, 0);
  r.on('finish', function () {
    setPlaying(false);
    document.body.setAttribute('data-finished', 'true');
    show();
    emit('finish', null);
  });
  window.replayer = r;
  meta = r.getMetaData();
  if (playing === false) keepFocusOut();
}

/** Starts the Replayer with the first events (a full snapshot among them, or every event). */
export function start(first: readonly ReplayEvent[]): void {
  remember(first);
  const events = all.slice();
  if (events.length < 2) {
    ui.status.textContent = 'This replay has ' + events.length + ' event(s): nothing to play.';
    ui.loading.hidden = true;
    return;
  }
  setWindowed(hasCanvas && !canvasAll());
  const moment = /[?&]t=(\d+(?:\.\d+)?)/.exec(location.search);
  // Opened paused (or at a moment, a seek once loaded): no canvas frame ahead of the start is decoded before the first
  // frame is shown; the window ahead is added by the first feedCanvas, a quarter of a second later.
  const opensPaused = moment !== null || !options.autoPlay;
  create(isWindowed() ? windowAt(all, 0, opensPaused ? 0 : undefined) : events);
  count = events.length;
  ui.play.disabled = false;
  ui.play.onclick = function () {
    playPause(!playing);
  };
  ui.seek.oninput = function () {
    goTo(Number(ui.seek.value));
  };
  ui.speed.onchange = function () {
    setSpeed(Number(ui.speed.value));
    // Focus goes back to Play, so that the keys are the player's again.
    ui.play.focus();
  };
  ui.skip.onchange = function () {
    setSkip(ui.skip.checked);
  };
  ui.fullscreen.onclick = toggleFullscreen;
  if (moment) {
    // A link to a moment (`?t=` seconds): the replay opens paused there, once the page has loaded (a seek rebuilds
    // the replay document at once, and the page's load event would wait for that document for ever).
    const at = Number(moment[1]) * 1000;
    replayer!.pause(0);
    setPlaying(false);
    const seek = function (): void {
      goTo(Math.min(at, meta.totalTime));
    };
    if (document.readyState === 'complete') seek();
    else window.addEventListener('load', seek);
  } else if (!options.autoPlay) {
    replayer!.pause(0);
    setPlaying(false);
  } else {
    replayer!.play(0);
    setPlaying(true);
  }
  keepFocusOut();
  ui.loading.hidden = true;
  document.body.setAttribute('data-ready', 'true');
  show();
  emit('ready', null);
  setInterval(function () {
    keepFocusOut();
    if (replayer && isWindowed()) feedCanvas(replayer, all, now());
    show();
  }, 250);
}

/** Adds events taken after the start. */
export function add(events: readonly ReplayEvent[]): void {
  const from = all.length;
  remember(events);
  // The first canvas frames may arrive after the start: from then on the canvas window holds them back too.
  if (!isWindowed() && hasCanvas && !canvasAll()) setWindowed(true);
  if (hasCanvas) replayer!.setConfig({ UNSAFE_replayCanvas: true });
  for (let i = 0; i < events.length; i++) offerLate(replayer!, events[i]!, from + i);
  count += events.length;
}

/** Every event is in: the timeline is drawn at once from now on. */
export function finished(): void {
  loaded = true;
  if (replayer && isWindowed()) addLast(replayer, all);
  show();
  document.body.setAttribute('data-loaded', 'true');
}

// The options the page opens with: the menus show them, and without controls the bar and side panel are hidden.
ui.speed.value = String(options.speed);
ui.skip.checked = options.skipInactive;
document.body.toggleAttribute('data-no-controls', !options.showController);
installPanels();
installApi({
  ready: started,
  play: function () {
    playPause(true);
  },
  pause: function () {
    playPause(false);
  },
  toggle: function () {
    playPause(!playing);
  },
  goto: function (timeOffset, play) {
    if (!replayer) return;
    if (play !== undefined) setPlaying(play);
    goTo(Math.max(0, Math.min(meta.totalTime, timeOffset)));
  },
  setSpeed: setSpeed,
  toggleSkipInactive: function () {
    setSkip(!options.skipInactive);
  },
  setSize: function (width, height) {
    options.width = sizeOf(width);
    options.height = sizeOf(height);
    fitNow();
  },
  getMetaData: function () {
    return { startTime: meta.startTime, endTime: meta.endTime, totalTime: meta.totalTime };
  },
  getCurrentTime: function () {
    return replayer ? now() : 0;
  },
  getReplayer: function () {
    return replayer;
  },
});
installControls({
  replayer: function () {
    return replayer;
  },
  now: now,
  totalTime: function () {
    return meta.totalTime;
  },
  goTo: goTo,
});
document.addEventListener('focusin', keepFocusOut, true);
window.addEventListener('blur', function () {
  setTimeout(keepFocusOut, 0);
});
