/**
 * The player's viewer controls: the replay scaled to fit the window, fullscreen, the recorded URL and start date,
 * and the keyboard (Space, ←/→ ±5 s, Home/End, F, N/P next and previous marker). Keys are the viewer's: the replayed document is inert and never
 * receives them.
 */
import type { Replayer } from 'rrweb';
import { ui } from './dom.js';
import { META, type ReplayEvent } from './events.js';
import { clip, utc } from './format.js';
import { options } from './options.js';
import { markerFrom } from './timeline.js';

/** What the controls drive: the player (player.ts). */
export interface Playback {
  /** The Replayer now playing; null until the replay starts. */
  replayer(): Replayer | null;
  /** The position, in ms from the start (only once a Replayer plays). */
  now(): number;
  /** The replay's length in ms (only once a Replayer plays). */
  totalTime(): number;
  goTo(t: number): void;
}

/**
 * Scales the replay, down or up, to fit the replay area: the stage's width and the window's height, or the size the
 * options give (`width`/`height`, the stage's box, its width never beyond the room the page has: nothing scrolls
 * sideways); with a width alone the height follows the recording's shape.
 */
export function fit(replayer: Replayer | null): void {
  if (!replayer?.wrapper || !replayer.iframe) return;
  const stage = ui.stage;
  // The frame's layout size (its border included), else the recorded size rrweb gave it.
  const w = replayer.iframe.offsetWidth || Number(replayer.iframe.width),
    h = replayer.iframe.offsetHeight || Number(replayer.iframe.height);
  if (!w || !h) return;
  stage.style.width = options.width !== undefined ? options.width + 'px' : '';
  stage.style.flex = options.width !== undefined ? '0 1 auto' : '';
  const box = stage.getBoundingClientRect();
  const room =
    options.height !== undefined
      ? options.height
      : options.width !== undefined
        ? Infinity
        : Math.max(100, window.innerHeight - box.top - 8);
  // `?scale=1`: the replay at its recorded size, whatever the window (screenshots, pixel comparisons, embedding).
  const scale = /[?&]scale=1(?:&|$)/.test(location.search) ? 1 : Math.min(stage.clientWidth / w, room / h);
  replayer.wrapper.style.transformOrigin = '0 0';
  replayer.wrapper.style.transform = 'scale(' + scale + ')';
  stage.style.height = (options.height !== undefined ? options.height : Math.ceil(h * scale)) + 'px';
  stage.setAttribute('data-scale', scale.toFixed(3));
}

/** The page shown at replay time t (the last Meta event at or before it, else the first) and the recording's start. */
export function describe(events: readonly ReplayEvent[], t: number): string {
  let href = '';
  const start = events.length ? events[0]!.timestamp : 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (href && e.timestamp - start > t) break;
    if (e.type === META && e.data && typeof e.data.href === 'string') href = e.data.href;
  }
  return (href ? clip(href, 120) + ' · ' : '') + 'recorded ' + utc(start);
}

export function toggleFullscreen(): void {
  document.body.setAttribute('data-fullscreen-requested', String(!document.fullscreenElement));
  if (document.fullscreenElement) {
    if (document.exitFullscreen) document.exitFullscreen().catch(function () {});
  } else if (document.documentElement.requestFullscreen)
    document.documentElement.requestFullscreen().catch(function () {});
}

/** Refits on resize and fullscreen changes, and takes the player's keys. */
export function installControls(playback: Playback): void {
  window.addEventListener('resize', function () {
    fit(playback.replayer());
  });
  document.addEventListener('fullscreenchange', function () {
    setTimeout(function () {
      fit(playback.replayer());
    }, 50);
  });
  function jump(t: number): void {
    if (playback.replayer()) playback.goTo(Math.max(0, Math.min(playback.totalTime(), t)));
  }
  document.addEventListener(
    'keydown',
    function (ev) {
      if (!playback.replayer() || ev.ctrlKey || ev.metaKey || ev.altKey) return;
      const target = ev.target as HTMLInputElement | null;
      const tag = target?.tagName;
      if (tag === 'INPUT' && target!.type !== 'range' && target!.type !== 'checkbox') return;
      const key = ev.key;
      // The speed menu keeps ↑/↓ (and its own popup's keys); Space and ←/→ stay the player's.
      if (tag === 'SELECT' && key !== ' ' && key !== 'ArrowLeft' && key !== 'ArrowRight') return;
      let handled = true;
      if (key === ' ' || key === 'Spacebar') ui.play.click();
      else if (key === 'ArrowRight') jump(playback.now() + 5000);
      else if (key === 'ArrowLeft') jump(playback.now() - 5000);
      else if (key === 'Home') jump(0);
      else if (key === 'End') jump(playback.totalTime());
      else if (key === 'f' || key === 'F') toggleFullscreen();
      else if (key === 'n' || key === 'N' || key === ']' || key === 'p' || key === 'P' || key === '[') {
        const to = markerFrom(playback.now(), key === 'n' || key === 'N' || key === ']' ? 1 : -1);
        if (to !== null) jump(to);
      } else handled = false;
      if (handled) {
        ev.preventDefault();
        ev.stopPropagation();
      }
    },
    true,
  );
  // A focused button would also act on the Space key's release: the key is the player's.
  document.addEventListener(
    'keyup',
    function (ev) {
      if (ev.key === ' ') ev.preventDefault();
    },
    true,
  );
}
