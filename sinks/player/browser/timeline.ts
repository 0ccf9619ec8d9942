/**
 * The player's timeline: what the recording holds worth jumping to (markers: custom events, clicks, page
 * navigations, errors), the idle periods that skip inactivity passes over, and their drawing on the timeline strip
 * and in the side list. Text from the recording is only ever set as textContent: it can never become markup or a link.
 */
import { ui } from './dom.js';
import {
  CUSTOM,
  INCREMENTAL,
  META,
  PLUGIN,
  SOURCE_INPUT,
  SOURCE_MOUSE_INTERACTION,
  type Json,
  type ReplayEvent,
} from './events.js';
import { clip, fmt } from './format.js';
import { entryButton, inspect } from './panels.js';

/** rrweb's Replayer skips gaps longer than this between user interactions (its inactivePeriodThreshold). */
export const IDLE_MS = 10000;
const MAX_MARKERS = 1000;
/** rrweb's MouseInteractions.Click. */
const CLICK = 2;

type MarkerKind = 'click' | 'page' | 'custom' | 'error';

interface Marker {
  kind: MarkerKind;
  label: string;
  /** Milliseconds from the first event. */
  time: number;
  /** The event's data, shown in the inspector when the marker is chosen. */
  data: Json;
}

/** Columns of the activity density chart on the strip. */
const DENSITY_BINS = 120;

/**
 * The marker of one event, if it is one. `href`: the page's URL before it (undefined before the first Meta event): a
 * Meta event is a navigation only when its URL differs (rrweb writes one with every periodic full snapshot too).
 */
function markerOf(e: Json, href: string | undefined): Omit<Marker, 'time' | 'data'> | null {
  const d = e?.data;
  if (!d || typeof d !== 'object') return null;
  if (e.type === INCREMENTAL && d.source === SOURCE_MOUSE_INTERACTION && d.type === CLICK)
    return { kind: 'click', label: 'click' };
  if (e.type === META && typeof d.href === 'string')
    return href === undefined || href === d.href ? null : { kind: 'page', label: 'page ' + clip(d.href, 80) };
  if (e.type === CUSTOM) {
    const tag = typeof d.tag === 'string' ? d.tag : 'custom';
    return { kind: /error|exception/i.test(tag) ? 'error' : 'custom', label: clip(tag, 60) };
  }
  if (e.type === PLUGIN && d.plugin === 'rrweb/console@1' && d.payload && d.payload.level === 'error') {
    const args = Array.isArray(d.payload.payload) ? d.payload.payload.join(' ') : '';
    return { kind: 'error', label: 'console error ' + clip(args, 60) };
  }
  return null;
}

/** A user interaction, in the sense of rrweb's skip inactivity (incremental sources MouseMove to Input). */
function isInteraction(e: Json): boolean {
  return e && e.type === INCREMENTAL && e.data && e.data.source > 0 && e.data.source <= SOURCE_INPUT;
}

interface Timeline {
  markers: Marker[];
  /** [from, to] in milliseconds from the first event. */
  idle: Array<[number, number]>;
  /** More markers than listed. */
  capped: boolean;
}

/** Markers and idle periods of the events, times relative to the first event. */
function timelineOf(events: readonly ReplayEvent[]): Timeline {
  const start = events.length ? events[0]!.timestamp : 0,
    markers: Marker[] = [],
    idle: Array<[number, number]> = [];
  let lastActive: number | null = null,
    href: string | undefined;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (!e || typeof e.timestamp !== 'number') continue;
    const m = markerOf(e, href);
    if (e.type === META && e.data && typeof e.data.href === 'string') href = e.data.href;
    if (m && markers.length < MAX_MARKERS)
      markers.push({ kind: m.kind, label: m.label, time: e.timestamp - start, data: e.data });
    if (isInteraction(e)) {
      if (lastActive !== null && e.timestamp - lastActive > IDLE_MS)
        idle.push([lastActive - start, e.timestamp - start]);
      lastActive = e.timestamp;
    }
  }
  return { markers: markers, idle: idle, capped: markers.length >= MAX_MARKERS };
}

function pct(t: number, total: number): string {
  return (total > 0 ? Math.max(0, Math.min(100, (t / total) * 100)) : 0) + '%';
}

/** The markers drawn last, their side-list buttons, the one highlighted, the strip's playhead. */
let drawnMarkers: Marker[] = [],
  listed: HTMLButtonElement[] = [],
  lit: HTMLButtonElement | null = null,
  playhead: HTMLSpanElement | null = null;

const strip = ui.timeline;

/** Events per column over the replay, as bars under the markers (how busy each moment is). */
function drawDensity(events: readonly ReplayEvent[], total: number): void {
  if (!events.length || total <= 0) return;
  const start = events[0]!.timestamp,
    bins: number[] = [];
  for (let b = 0; b < DENSITY_BINS; b++) bins.push(0);
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (e && typeof e.timestamp === 'number')
      bins[Math.max(0, Math.min(DENSITY_BINS - 1, Math.floor(((e.timestamp - start) / total) * DENSITY_BINS)))]!++;
  }
  const max = Math.max.apply(null, bins);
  for (let b = 0; b < DENSITY_BINS; b++) {
    if (!bins[b]) continue;
    const bar = document.createElement('span');
    bar.className = 'density';
    bar.style.left = (b * 100) / DENSITY_BINS + '%';
    bar.style.width = 100 / DENSITY_BINS + '%';
    bar.style.height = Math.max(10, Math.round((Math.log(1 + bins[b]!) / Math.log(1 + max)) * 100)) + '%';
    strip.appendChild(bar);
  }
}
/** The playhead on the strip and the current marker (the last at or before t) highlighted in the side list. */
export function followPosition(t: number, total: number): void {
  if (playhead) playhead.style.left = pct(t, total);
  let at = -1;
  for (let i = 0; i < drawnMarkers.length && drawnMarkers[i]!.time <= t + 50; i++) at = i;
  const next = at >= 0 ? listed[at]! : null;
  if (next === lit) return;
  if (lit) {
    lit.classList.remove('current');
    lit.removeAttribute('aria-current');
  }
  lit = next;
  if (lit) {
    lit.classList.add('current');
    lit.setAttribute('aria-current', 'true');
  }
}

/** The time of the next marker after t (dir 1) or the one before it (dir -1), if any. */
export function markerFrom(t: number, dir: 1 | -1): number | null {
  if (dir > 0) {
    for (let i = 0; i < drawnMarkers.length; i++) if (drawnMarkers[i]!.time > t + 50) return drawnMarkers[i]!.time;
  } else {
    for (let j = drawnMarkers.length - 1; j >= 0; j--) if (drawnMarkers[j]!.time < t - 50) return drawnMarkers[j]!.time;
  }
  return null;
}

/** Draws the events' timeline on the strip and the side list (`total`: the replay's length); a click calls `seekTo`. */
export function drawTimeline(events: readonly ReplayEvent[], total: number, seekTo: (t: number) => void): void {
  const tl = timelineOf(events),
    list = ui.markers;
  strip.textContent = '';
  list.textContent = '';
  drawnMarkers = tl.markers;
  listed = [];
  lit = null;
  drawDensity(events, total);
  for (let i = 0; i < tl.idle.length; i++) {
    const [from, to] = tl.idle[i]!;
    const span = document.createElement('span');
    span.className = 'idle';
    span.style.left = pct(from, total);
    span.style.width = pct(to - from, total);
    span.title = 'inactive ' + fmt(to - from);
    strip.appendChild(span);
  }
  tl.markers.forEach(function (m) {
    const dot = document.createElement('button');
    dot.className = 'mark ' + m.kind;
    dot.style.left = pct(m.time, total);
    dot.title = fmt(m.time) + ' ' + m.label;
    dot.tabIndex = -1;
    dot.onclick = function () {
      inspect(fmt(m.time) + ' ' + m.label, m.data);
      seekTo(m.time);
    };
    strip.appendChild(dot);
    const item = document.createElement('li');
    const jump = entryButton(m.time, m.label, m.kind, m.data, seekTo);
    listed.push(jump);
    item.appendChild(jump);
    list.appendChild(item);
  });
  if (tl.capped) {
    const more = document.createElement('li');
    more.textContent = 'only the first ' + MAX_MARKERS + ' markers are listed';
    list.appendChild(more);
  }
  playhead = document.createElement('span');
  playhead.className = 'playhead';
  strip.appendChild(playhead);
  strip.onclick = function (ev) {
    const target = ev.target as Element | null;
    if (target !== strip && !(target && target.className === 'idle')) return;
    const box = strip.getBoundingClientRect();
    seekTo(Math.round(((ev.clientX - box.left) / box.width) * total));
  };
}
