/**
 * The player's browser code, kept as a string so that it ships in `dist` with the module that inlines or serves it.
 *
 * It reads its settings from `<script id="player-config" type="application/json">` and the events either from the
 * page's `<script class="replay-events" type="application/json">` blocks, each handed over by the one-call script
 * after it while the page is still being parsed (one-page format), or, streamed, from `eventsUrl` as NDJSON (the
 * shared player). Either way the Replayer starts as soon as a full snapshot is in, and later events are added. Before any event reaches rrweb's Replayer it is sanitized: whatever the recording holds,
 * nothing that could run code, navigate or load from outside is rebuilt (see docs/PLAYER.md).
 */
import { CANVAS_WINDOW_SCRIPT } from './canvas-window-script.js';
import { CONTROLS_SCRIPT } from './controls-script.js';
import { TIMELINE_SCRIPT } from './timeline-script.js';

export const PLAYER_SCRIPT = String.raw`
(function () {
  'use strict';
  var config = JSON.parse(document.getElementById('player-config').textContent);
  var status = document.getElementById('status');
  var loading = document.getElementById('loading');

  // ---- sanitizing what the replayer rebuilds --------------------------------------------------------------
  var URL_ATTRS = { href: 1, src: 1, action: 1, formaction: 1, 'xlink:href': 1, data: 1, background: 1, poster: 1, codebase: 1, cite: 1, ping: 1 };
  function scriptUrl(value) {
    return typeof value === 'string' && /^(javascript|vbscript|data:text\/html)/i.test(value.replace(/[\u0000-\u0020\u007f-\u009f]+/g, '').replace(/^data:text\/html/i, 'data:text/html'));
  }
  function dropAttribute(tag, name, value) {
    var n = String(name).toLowerCase();
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
  // CSS may load from outside too: every url() that is not data:/blob: (or a captured asset) is emptied.
  function cleanCss(text, base) {
    if (typeof text !== 'string' || !/url\s*\(|@import/i.test(text)) return text;
    if (haveAssets) return rewriteCss(text, base || pageBase, 0);
    return text
      .replace(/url\s*\(\s*(['"]?)(?!\s*(data:|blob:))[^)]*\)/gi, 'url()')
      .replace(/@import[^;]*;?/gi, '');
  }

  // ---- captured assets (--capture-assets): the recorded URLs played from the archive -----------------------
  // URL (absolute, no fragment) → digest; digest → its data:/blob: URL, its type, a stylesheet's text.
  var assetUrls = Object.create(null), assetHref = Object.create(null), assetType = Object.create(null), assetCss = Object.create(null);
  var haveAssets = false, pageBase;
  function absolute(raw, base) {
    if (typeof raw !== 'string') return null;
    var t = raw.trim();
    if (!t || /^(data|blob|javascript|about|#)/i.test(t)) return null;
    var u;
    try { u = base ? new URL(t, base) : new URL(t); } catch (e) { return null; }
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password) return null;
    u.hash = '';
    return u.href;
  }
  function capturedHref(raw, base) {
    var a = absolute(raw, base), d = a && assetUrls[a];
    return d && assetType[d] !== 'text/css' ? assetHref[d] : null;
  }
  /** A captured stylesheet's text with its own url() and @import (relative to its URL) captured too; null if not captured. */
  function capturedCss(raw, base, depth) {
    var a = absolute(raw, base), d = a && assetUrls[a];
    if (!d || typeof assetCss[d] !== 'string') return null;
    return rewriteCss(assetCss[d], a, depth + 1);
  }
  function rewriteCss(text, base, depth) {
    return text
      .replace(/@import\s+(?:url\(\s*(['"]?)([^)'"]*)\1\s*\)|(['"])([^'"]*)\3)[^;]*;?/gi, function (m, q1, u1, q2, u2) {
        var css = depth < 4 ? capturedCss(u1 || u2, base, depth) : null;
        return css === null ? '' : css;
      })
      .replace(/@import[^;]*;?/gi, '')
      .replace(/url\s*\(([^)]*)\)/gi, function (m, inner) {
        var v = inner.trim().replace(/^(['"])(.*)\1$/, '$2');
        if (/^(data:|blob:)/i.test(v)) return m;
        var href = capturedHref(v, base);
        return href ? 'url("' + href + '")' : 'url()';
      });
  }
  function rewriteSrcset(value) {
    var out = [];
    String(value).split(',').forEach(function (part) {
      var bits = part.trim().split(/\s+/), href = bits[0] && capturedHref(bits[0], pageBase);
      if (href) { bits[0] = href; out.push(bits.join(' ')); }
    });
    return out.join(', ');
  }
  /** Only the attributes the exporter captures for (the same tags): any other URL is still dropped. */
  function useCaptured(tag, attributes) {
    if (tag === 'link' && typeof attributes.href === 'string') {
      if (typeof attributes._cssText === 'string') {
        attributes._cssText = rewriteCss(attributes._cssText, absolute(attributes.href, pageBase) || pageBase, 0);
      } else if (/(^|\s)stylesheet(\s|$)/i.test(String(attributes.rel || ''))) {
        // rrweb builds a <style> of a link with _cssText: the stylesheet is played from the archive, never fetched.
        var css = capturedCss(attributes.href, pageBase, 0);
        if (css !== null) attributes._cssText = css;
      } else {
        var icon = capturedHref(attributes.href, pageBase);
        if (icon) attributes.href = icon;
      }
    }
    if (tag === 'img' || tag === 'source' || tag === 'input') {
      var src = typeof attributes.src === 'string' && capturedHref(attributes.src, pageBase);
      if (src) attributes.src = src;
      if (typeof attributes.srcset === 'string') attributes.srcset = rewriteSrcset(attributes.srcset);
    }
    if (tag === 'video' && typeof attributes.poster === 'string') {
      var poster = capturedHref(attributes.poster, pageBase);
      if (poster) attributes.poster = poster;
    }
  }
  function setAsset(digest, type, href, css) {
    assetHref[digest] = href;
    assetType[digest] = type;
    if (type === 'text/css') assetCss[digest] = css;
  }
  function mapUrls(urls) {
    for (var url in urls) if (Object.prototype.hasOwnProperty.call(urls, url) && assetHref[urls[url]] !== undefined) { assetUrls[url] = urls[url]; haveAssets = true; }
  }
  /** One-page format: the asset blocks after the events (read once the page is parsed, then dropped). */
  function loadPageAssets() {
    var block = document.getElementById('replay-assets');
    if (!block) return;
    var map = JSON.parse(block.textContent);
    block.remove();
    var blocks = document.querySelectorAll('script.replay-asset');
    for (var i = 0; i < blocks.length; i++) {
      var d = blocks[i].getAttribute('data-digest'), type = map.types[d], b64 = blocks[i].textContent;
      blocks[i].remove();
      if (typeof type !== 'string' || !/^[a-z0-9.+-]+\/[a-z0-9.+-]+$/.test(type)) continue;
      var css = null;
      if (type === 'text/css') {
        var bin = atob(b64), bytes = new Uint8Array(bin.length);
        for (var k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
        css = new TextDecoder().decode(bytes);
      }
      setAsset(d, type, 'data:' + type + ';base64,' + b64, css);
    }
    mapUrls(map.urls);
  }
  /** Shared player: the assets the config names, fetched from the same origin as blob: URLs before any event. */
  function loadServedAssets() {
    var map = config.assets;
    if (!map || !config.capturedBase) return Promise.resolve();
    return Promise.all(Object.keys(map.types).map(function (d) {
      var type = map.types[d];
      if (!/^[0-9a-f]{64}$/.test(d) || typeof type !== 'string' || !/^[a-z0-9.+-]+\/[a-z0-9.+-]+$/.test(type)) return null;
      return fetch(config.capturedBase + d).then(function (r) {
        if (!r.ok) return;
        return r.blob().then(function (blob) {
          var href = URL.createObjectURL(new Blob([blob], { type: type }));
          if (type !== 'text/css') return setAsset(d, type, href, null);
          return blob.text().then(function (text) { setAsset(d, type, href, text); });
        });
      }).catch(function () {});
    })).then(function () { mapUrls(map.urls); });
  }
  var tagById = Object.create(null);
  var styleText = Object.create(null);
  function cleanAttributes(tag, attributes) {
    if (!attributes || typeof attributes !== 'object') return;
    if (haveAssets) useCaptured(tag, attributes);
    for (var name in attributes) {
      if (!Object.prototype.hasOwnProperty.call(attributes, name)) continue;
      if (dropAttribute(tag, name, attributes[name])) delete attributes[name];
      else if (name === 'style') attributes[name] = cleanCss(attributes[name]);
      else if (name === '_cssText') attributes[name] = cleanCss(attributes[name], tag === 'link' && typeof attributes.href === 'string' ? absolute(attributes.href, pageBase) : pageBase);
      else if (attributes[name] && typeof attributes[name] === 'object') {
        // A style attribute recorded as a diff: { property: value | [value, priority] }.
        for (var prop in attributes[name]) {
          var v = attributes[name][prop];
          if (typeof v === 'string') attributes[name][prop] = cleanCss(v);
          else if (Array.isArray(v)) v[0] = cleanCss(v[0]);
        }
      }
    }
  }
  function cleanNode(node) {
    if (!node || typeof node !== 'object') return;
    if (node.type === 2) {
      var tag = String(node.tagName || '').toLowerCase();
      if (typeof node.id === 'number') tagById[node.id] = tag;
      cleanAttributes(tag, node.attributes);
      if (tag === 'script') node.childNodes = [];
      if (tag === 'style' && Array.isArray(node.childNodes)) {
        for (var k = 0; k < node.childNodes.length; k++) if (node.childNodes[k] && typeof node.childNodes[k].id === 'number') styleText[node.childNodes[k].id] = 1;
      }
    }
    if (node.type === 3 && (node.isStyle || typeof node.id === 'number' && styleText[node.id])) node.textContent = cleanCss(node.textContent);
    if (Array.isArray(node.childNodes)) for (var i = 0; i < node.childNodes.length; i++) cleanNode(node.childNodes[i]);
  }
  function sanitize(event) {
    if (!event || typeof event !== 'object') return event;
    var data = event.data;
    if (!data || typeof data !== 'object') return event;
    if (event.type === 4 && typeof data.href === 'string') pageBase = data.href;
    if (event.type === 2) cleanNode(data.node);
    if (event.type === 3 && data.source === 0) {
      if (Array.isArray(data.adds)) for (var i = 0; i < data.adds.length; i++) {
        var add = data.adds[i];
        if (add && add.node && add.node.type === 3 && tagById[add.parentId] === 'style') styleText[add.node.id] = 1;
        cleanNode(add && add.node);
      }
      if (Array.isArray(data.texts)) for (var t = 0; t < data.texts.length; t++) {
        var x = data.texts[t];
        if (x && styleText[x.id]) x.value = cleanCss(x.value);
      }
      if (Array.isArray(data.attributes)) for (var j = 0; j < data.attributes.length; j++) {
        var a = data.attributes[j];
        if (a && typeof a === 'object') cleanAttributes(tagById[a.id] || '', a.attributes);
      }
    }
    if (event.type === 3 && data.source === 8) {
      if (Array.isArray(data.adds)) for (var r = 0; r < data.adds.length; r++) if (data.adds[r]) data.adds[r].rule = cleanCss(data.adds[r].rule);
      if (typeof data.replace === 'string') data.replace = cleanCss(data.replace);
      if (typeof data.replaceSync === 'string') data.replaceSync = cleanCss(data.replaceSync);
    }
    if (event.type === 3 && data.source === 13 && data.set) data.set.value = cleanCss(data.set.value);
    return event;
  }

${TIMELINE_SCRIPT}
${CONTROLS_SCRIPT}
${CANVAS_WINDOW_SCRIPT}
  // ---- the player -------------------------------------------------------------------------------------------
  var replayer = null, meta = null, playing = false, count = 0;
  var seek = document.getElementById('seek');
  var play = document.getElementById('play');
  var speed = document.getElementById('speed');
  var stage = document.getElementById('stage');
  function fmt(ms) {
    var s = Math.max(0, Math.floor(ms / 1000)), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60;
    return h + ':' + String(m).padStart(2, '0') + ':' + String(s % 60).padStart(2, '0');
  }
  function now() { return Math.max(0, Math.min(replayer.getCurrentTime(), meta.totalTime)); }
  function show() {
    if (!replayer) return;
    meta = replayer.getMetaData();
    seek.max = String(meta.totalTime);
    var t = now();
    seek.value = String(t);
    status.textContent = fmt(t) + ' / ' + fmt(meta.totalTime) + ' · ' + count + ' events';
    info.textContent = describe(t);
    if (drawn !== count && (loaded || Date.now() - drawnAt > 2000)) {
      drawn = count;
      drawnAt = Date.now();
      drawTimeline(all, meta.totalTime, goTo);
    }
  }
  var drawn = -1, drawnAt = 0, loaded = false;
  function setPlaying(p) { playing = p; play.textContent = p ? 'Pause' : 'Play'; }
  function keepFocusOut() {
    // The replayed document must never take the viewer's keyboard: the stage is inert and focus is taken back.
    var frame = stage.querySelector('iframe');
    if (frame) { frame.setAttribute('tabindex', '-1'); frame.setAttribute('inert', ''); }
    var active = document.activeElement;
    if (active && (active === frame || stage.contains(active))) { active.blur(); play.focus(); }
  }
  function goTo(t) {
    if (windowed) {
      // A fresh Replayer at the target, with the canvas frames of its window (this also draws a canvas right after
      // a backward seek, which rrweb leaves blank once later frames were drawn: issue #15, defect 4).
      replayer.destroy();
      create(windowAt(t));
      if (playing) replayer.play(t); else replayer.pause(t);
    } else if (playing) { replayer.play(t); } else { replayer.pause(t); }
    if (!playing) settleCanvas(t);
    show();
  }
  // rrweb draws the canvas frames of a seek asynchronously, each once its image is decoded, so under load an older
  // frame can land last. Once its own decoding ahead has finished, the frames are drawn in order: the paused seek
  // of a canvas replay is applied again a few times (while it stays paused there).
  var settleTimers = [];
  function settleCanvas(t) {
    for (var i = 0; i < settleTimers.length; i++) clearTimeout(settleTimers[i]);
    settleTimers = [];
    if (!hasCanvas) return;
    [300, 1200, 3000].forEach(function (ms) {
      settleTimers.push(setTimeout(function () { if (!playing && replayer && Math.abs(now() - t) < 1) replayer.pause(t); }, ms));
    });
  }
  var all = [], hasCanvas = false;
  window.replayEvents = all; // every event taken so far, sanitized (read by tests and tools)
  function remember(events) {
    for (var i = 0; i < events.length; i++) {
      all.push(events[i]);
      if (!hasCanvas && events[i] && events[i].type === 3 && events[i].data && events[i].data.source === 9) hasCanvas = true;
    }
  }
  function create(events) {
    replayer = new rrweb.Replayer(events, {
      root: stage,
      UNSAFE_replayCanvas: true,
      mouseTail: false,
      showWarning: false,
      triggerFocus: false,
      skipInactive: skip.checked,
      inactivePeriodThreshold: IDLE_MS
    });
    replayer.on('resize', function () { setTimeout(fit, 0); });
    setTimeout(fit, 0);
    replayer.on('finish', function () { setPlaying(false); document.body.setAttribute('data-finished', 'true'); show(); });
    window.replayer = replayer;
    meta = replayer.getMetaData();
    if (playing === false) keepFocusOut();
  }
  function start(first) {
    remember(first);
    first = all.slice();
    if (first.length < 2) { status.textContent = 'This replay has ' + first.length + ' event(s): nothing to play.'; loading.hidden = true; return; }
    windowed = hasCanvas && !/[?&]canvas=all\b/.test(location.search);
    create(windowed ? windowAt(0) : first);
    count = first.length;
    play.disabled = false;
    play.onclick = function () {
      if (playing) { replayer.pause(); setPlaying(false); }
      else if (now() >= meta.totalTime) { setPlaying(true); goTo(0); }
      else { replayer.play(now()); setPlaying(true); }
      show();
    };
    seek.oninput = function () { goTo(Number(seek.value)); };
    speed.onchange = function () { replayer.setConfig({ speed: Number(speed.value) }); };
    skip.onchange = function () { replayer.setConfig({ skipInactive: skip.checked }); };
    fullscreen.onclick = toggleFullscreen;
    if (/[?&]paused\b/.test(location.search)) { replayer.pause(0); setPlaying(false); }
    else { replayer.play(0); setPlaying(true); }
    keepFocusOut();
    loading.hidden = true;
    document.body.setAttribute('data-ready', 'true');
    show();
    setInterval(function () { keepFocusOut(); feedCanvas(); show(); }, 250);
  }
  function add(events) {
    var from = all.length;
    remember(events);
    // The first canvas frames may arrive after the start: from then on the canvas window holds them back too.
    if (!windowed && hasCanvas && !/[?&]canvas=all\b/.test(location.search)) windowed = true;
    for (var i = 0; i < events.length; i++) offerLate(events[i], from + i);
    count += events.length;
  }
  document.addEventListener('focusin', keepFocusOut, true);
  window.addEventListener('blur', function () { setTimeout(keepFocusOut, 0); });

  // ---- events, taken as they arrive ---------------------------------------------------------------------------
  var pending = [], snapshotIn = false, startEarly = !!config.eventsUrl;
  // One-page format: the events are sanitized at the end of the page, once its captured assets (after them) are read.
  var deferred = !startEarly;
  /** Sanitizes arriving events; the Replayer starts once a full snapshot is in (or at the end), then they are added. */
  function take(events, final) {
    for (var i = 0; i < events.length; i++) {
      var e = deferred ? events[i] : sanitize(events[i]);
      if (e && e.type === 2) snapshotIn = true;
      pending.push(e);
    }
    if (deferred && final) {
      deferred = false;
      loadPageAssets();
      for (var j = 0; j < pending.length; j++) pending[j] = sanitize(pending[j]);
    }
    if (!replayer) {
      if (final || (startEarly && snapshotIn && pending.length >= 2)) { start(pending); pending = []; }
      return;
    }
    if (pending.length) { add(pending); pending = []; show(); }
  }
  function finished() {
    loaded = true;
    show();
    document.body.setAttribute('data-loaded', 'true');
  }

  if (config.eventsUrl) {
    // Shared player: the captured assets first, then the events, NDJSON streamed.
    loadServedAssets().then(function () { return fetch(config.eventsUrl); }).then(function (response) {
      if (!response.ok || !response.body) throw new Error('events: HTTP ' + response.status);
      var reader = response.body.getReader(), decoder = new TextDecoder(), rest = '';
      function pump() {
        return reader.read().then(function (r) {
          if (!r.done) rest += decoder.decode(r.value, { stream: true });
          else rest += decoder.decode();
          var lines = rest.split('\n'), batch = [];
          rest = r.done ? '' : lines.pop();
          for (var i = 0; i < lines.length; i++) if (lines[i].trim()) batch.push(JSON.parse(lines[i]));
          take(batch, r.done);
          if (!r.done) return pump();
          finished();
        });
      }
      return pump();
    }).catch(function (err) { loading.hidden = true; status.textContent = 'Could not load the replay: ' + err.message; });
  } else {
    // One-page format: the script after each block calls this while the page is parsed; a block is dropped from the
    // document once read, so that its text does not stay in memory next to its events.
    window.replayTakeBlocks = function () {
      var block;
      while ((block = document.querySelector('script.replay-events'))) {
        var events = JSON.parse(block.textContent);
        block.remove();
        take(events, false);
      }
    };
    document.addEventListener('DOMContentLoaded', function () {
      window.replayTakeBlocks();
      take([], true);
      finished();
    });
  }
})();
`;
