/**
 * The side panels: console (rrweb's console plugin, every level, filterable), network (rrweb's network plugin, or "not
 * recorded"), custom events, and the inspector that shows the selected entry's payload. Everything from the
 * recording is set as text (textContent), never as markup or a link; a click on an entry seeks to its time.
 */
import { ui } from './dom.js';
import { CUSTOM, PLUGIN, type Json, type ReplayEvent } from './events.js';
import { clip, fmt } from './format.js';

const MAX_ROWS = 2000;
const MAX_PAYLOAD = 20000;

interface Row {
  time: number;
  text: string;
  kind: string;
  data: Json;
}

/** Shows a payload in the inspector, as text. */
export function inspect(title: string, data: Json): void {
  let text: string;
  try {
    text = JSON.stringify(data, null, 2);
  } catch {
    text = String(data);
  }
  ui.inspector.textContent = title + '\n' + clip(text === undefined ? String(data) : text, MAX_PAYLOAD);
}

function argsText(payload: Json): string {
  return Array.isArray(payload) ? payload.map(String).join(' ') : '';
}

function rowsOf(events: readonly ReplayEvent[]): {
  console: Row[];
  network: Row[];
  custom: Row[];
  networkRecorded: boolean;
} {
  const start = events.length ? events[0]!.timestamp : 0,
    out = { console: [] as Row[], network: [] as Row[], custom: [] as Row[], networkRecorded: false };
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const d = e?.data;
    if (!d || typeof d !== 'object' || typeof e.timestamp !== 'number') continue;
    const time = e.timestamp - start;
    if (e.type === PLUGIN && d.plugin === 'rrweb/console@1' && d.payload && out.console.length < MAX_ROWS) {
      const level = String(d.payload.level || 'log');
      out.console.push({ time: time, kind: level, text: clip(argsText(d.payload.payload), 300), data: d.payload });
    } else if (e.type === PLUGIN && d.plugin === 'rrweb/network@1') {
      out.networkRecorded = true;
      const requests = d.payload && Array.isArray(d.payload.requests) ? d.payload.requests : [];
      for (let r = 0; r < requests.length && out.network.length < MAX_ROWS; r++) {
        const q = requests[r] || {};
        const failed = typeof q.status === 'number' && (q.status === 0 || q.status >= 400);
        out.network.push({
          time: time,
          kind: failed ? 'error' : 'ok',
          text: (q.method || 'GET') + ' ' + (q.status === undefined ? '' : q.status + ' ') + clip(q.name, 200),
          data: q,
        });
      }
    } else if (e.type === CUSTOM && out.custom.length < MAX_ROWS) {
      out.custom.push({
        time: time,
        kind: 'custom',
        text: clip(typeof d.tag === 'string' ? d.tag : 'custom', 80),
        data: d,
      });
    }
  }
  return out;
}

function fill(list: HTMLOListElement, rows: Row[], seekTo: (t: number) => void, empty: string): void {
  list.textContent = '';
  if (!rows.length) {
    const li = document.createElement('li');
    li.className = 'empty';
    li.textContent = empty;
    list.appendChild(li);
    return;
  }
  rows.forEach(function (row) {
    const li = document.createElement('li');
    li.appendChild(entryButton(row.time, row.text, row.kind, row.data, seekTo));
    list.appendChild(li);
  });
}

/** A list entry: `h:mm:ss text`; a click shows its payload in the inspector and seeks to it. */
export function entryButton(
  time: number,
  text: string,
  kind: string,
  data: Json,
  seekTo: (t: number) => void,
): HTMLButtonElement {
  const b = document.createElement('button');
  b.className = kind;
  b.setAttribute('data-time', String(time));
  b.setAttribute('data-kind', kind);
  b.textContent = fmt(time) + ' ' + text;
  b.onclick = function () {
    inspect(fmt(time) + ' ' + text, data);
    seekTo(time);
  };
  return b;
}

/** Shows only the console rows of the chosen level whose text holds the filter's text. */
function filterConsole(): void {
  const level = ui.consoleLevel.value,
    needle = ui.consoleFilter.value.toLowerCase(),
    items = ui.console.querySelectorAll('button');
  for (let i = 0; i < items.length; i++) {
    const b = items[i] as HTMLButtonElement;
    (b.parentNode as HTMLElement).hidden =
      (!!level && b.getAttribute('data-kind') !== level) ||
      (!!needle && (b.textContent || '').toLowerCase().indexOf(needle) < 0);
  }
}

/** Draws the panels of the events; a click seeks to an entry and shows its payload. */
export function drawPanels(events: readonly ReplayEvent[], seekTo: (t: number) => void): void {
  const rows = rowsOf(events);
  fill(ui.console, rows.console, seekTo, 'no console messages recorded');
  fill(ui.network, rows.network, seekTo, rows.networkRecorded ? 'no requests' : 'network not recorded');
  fill(ui.custom, rows.custom, seekTo, 'no custom events');
  const levels: Record<string, 1> = {};
  rows.console.forEach(function (r) {
    levels[r.kind] = 1;
  });
  const chosen = ui.consoleLevel.value;
  ui.consoleLevel.textContent = '';
  ['', ...Object.keys(levels).sort()].forEach(function (l) {
    const o = document.createElement('option');
    o.value = l;
    o.textContent = l || 'all levels';
    ui.consoleLevel.appendChild(o);
  });
  ui.consoleLevel.value = levels[chosen] ? chosen : '';
  filterConsole();
}

/** The tabs of the side panel, and the console's filters. */
export function installPanels(): void {
  ui.consoleLevel.onchange = filterConsole;
  ui.consoleFilter.oninput = filterConsole;
  const tabs = ui.tabs.querySelectorAll('button');
  for (let i = 0; i < tabs.length; i++) {
    const chosen = tabs[i] as HTMLButtonElement;
    chosen.onclick = function () {
      for (let j = 0; j < tabs.length; j++) {
        const tab = tabs[j] as HTMLButtonElement,
          on = tab === chosen;
        tab.setAttribute('aria-selected', String(on));
        document.getElementById(tab.getAttribute('data-panel')!)!.hidden = !on;
      }
    };
  }
}
