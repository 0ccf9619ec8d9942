/**
 * The player's entry: reads its settings and takes the events as they arrive, either from the page's
 * `<script class="replay-events" type="application/json">` blocks, each handed over by the one-call script after it
 * while the page is still being parsed (one-page format), or, streamed, from `eventsUrl` as NDJSON (the shared
 * player). Either way the Replayer starts as soon as a full snapshot is in, and later events are added. Every event
 * is sanitized before the Replayer sees it.
 */
import { loadPageAssets, loadServedAssets } from './captured-assets.js';
import { config } from './config.js';
import { ui } from './dom.js';
import { FULL_SNAPSHOT, type Json, type ReplayEvent } from './events.js';
import { add, finished, show, start, started } from './player.js';
import { sanitize } from './sanitize.js';

let pending: ReplayEvent[] = [],
  snapshotIn = false;
const startEarly = !!config.eventsUrl;
// One-page format: the events are sanitized at the end of the page, once its captured assets (after them) are read.
let deferred = !startEarly;

/** Sanitizes arriving events; the Replayer starts once a full snapshot is in (or at the end), then they are added. */
function take(events: readonly Json[], final: boolean): void {
  for (let i = 0; i < events.length; i++) {
    const e = deferred ? events[i] : sanitize(events[i]);
    if (e && e.type === FULL_SNAPSHOT) snapshotIn = true;
    pending.push(e);
  }
  if (deferred && final) {
    deferred = false;
    loadPageAssets();
    for (let j = 0; j < pending.length; j++) pending[j] = sanitize(pending[j]);
  }
  if (!started()) {
    if (final || (startEarly && snapshotIn && pending.length >= 2)) {
      start(pending);
      pending = [];
    }
    return;
  }
  if (pending.length) {
    add(pending);
    pending = [];
    show();
  }
}

if (config.eventsUrl) {
  const eventsUrl = config.eventsUrl;
  // Shared player: the captured assets first, then the events, NDJSON streamed.
  loadServedAssets(config)
    .then(function () {
      return fetch(eventsUrl);
    })
    .then(function (response) {
      if (!response.ok || !response.body) throw new Error('events: HTTP ' + response.status);
      const reader = response.body.getReader(),
        decoder = new TextDecoder();
      // The text of the line not yet ended, in pieces: joined once when its newline comes, so that a long line (one
      // large event over many chunks) costs its length once, not once per chunk.
      let open: string[] = [];
      function pump(): Promise<void> {
        return reader.read().then(function (r) {
          const text = r.done ? decoder.decode() : decoder.decode(r.value, { stream: true }),
            batch: Json[] = [];
          const line = function (end: string): void {
            open.push(end);
            const whole = open.join('');
            open = [];
            if (whole.trim()) batch.push(JSON.parse(whole));
          };
          let from = 0;
          for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
            line(text.slice(from, nl));
            from = nl + 1;
          }
          if (r.done) line(text.slice(from));
          else if (from < text.length) open.push(text.slice(from));
          take(batch, r.done);
          if (!r.done) return pump();
          finished();
        });
      }
      return pump();
    })
    .catch(function (err: Error) {
      ui.loading.hidden = true;
      ui.status.textContent = 'Could not load the replay: ' + err.message;
    });
} else {
  // One-page format: the script after each block calls this while the page is parsed; a block is dropped from the
  // document once read, so that its text does not stay in memory next to its events.
  const takeBlocks = function (): void {
    let block: Element | null;
    while ((block = document.querySelector('script.replay-events'))) {
      const events: Json[] = JSON.parse(block.textContent!);
      block.remove();
      take(events, false);
    }
  };
  window.replayTakeBlocks = takeBlocks;
  document.addEventListener('DOMContentLoaded', function () {
    takeBlocks();
    take([], true);
    finished();
  });
}
