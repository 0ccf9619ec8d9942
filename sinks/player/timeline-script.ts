/**
 * Browser code of the player's timeline, inlined into PLAYER_SCRIPT's scope (a string for the same reason): what
 * the recording holds worth jumping to (markers: custom events, clicks, page navigations, errors), the idle periods
 * that skip inactivity passes over, and their drawing on the timeline strip and in the side list. Text from the
 * recording is only ever set as textContent: it can never become markup or a link.
 */
export const TIMELINE_SCRIPT = String.raw`
  // ---- timeline: markers and idle periods -------------------------------------------------------------------
  // rrweb's Replayer skips gaps longer than this between user interactions (its inactivePeriodThreshold).
  var IDLE_MS = 10000;
  var MAX_MARKERS = 1000;
  function clip(text, n) { text = String(text); return text.length > n ? text.slice(0, n - 1) + '…' : text; }
  function markerOf(e, first) {
    var d = e && e.data;
    if (!d || typeof d !== 'object') return null;
    if (e.type === 3 && d.source === 2 && d.type === 2) return { kind: 'click', label: 'click' };
    if (e.type === 4 && typeof d.href === 'string') return first ? null : { kind: 'page', label: 'page ' + clip(d.href, 80) };
    if (e.type === 5) {
      var tag = typeof d.tag === 'string' ? d.tag : 'custom';
      return { kind: /error|exception/i.test(tag) ? 'error' : 'custom', label: clip(tag, 60) };
    }
    if (e.type === 6 && d.plugin === 'rrweb/console@1' && d.payload && d.payload.level === 'error') {
      var args = Array.isArray(d.payload.payload) ? d.payload.payload.join(' ') : '';
      return { kind: 'error', label: 'console error ' + clip(args, 60) };
    }
    return null;
  }
  function isInteraction(e) { return e && e.type === 3 && e.data && e.data.source > 0 && e.data.source <= 5; }
  /** Markers and idle periods of the events, times relative to the first event. */
  function timelineOf(events) {
    var start = events.length ? events[0].timestamp : 0, markers = [], idle = [], lastActive = null, seenMeta = false;
    for (var i = 0; i < events.length; i++) {
      var e = events[i];
      if (!e || typeof e.timestamp !== 'number') continue;
      var m = markerOf(e, e.type === 4 && !seenMeta);
      if (e.type === 4) seenMeta = true;
      if (m && markers.length < MAX_MARKERS) { m.time = e.timestamp - start; markers.push(m); }
      if (isInteraction(e)) {
        if (lastActive !== null && e.timestamp - lastActive > IDLE_MS) idle.push([lastActive - start, e.timestamp - start]);
        lastActive = e.timestamp;
      }
    }
    return { markers: markers, idle: idle, capped: markers.length >= MAX_MARKERS };
  }
  var strip = document.getElementById('timeline');
  var list = document.getElementById('markers');
  function pct(t, total) { return (total > 0 ? Math.max(0, Math.min(100, (t / total) * 100)) : 0) + '%'; }
  function drawTimeline(events, total, seekTo) {
    var tl = timelineOf(events);
    strip.textContent = '';
    list.textContent = '';
    for (var i = 0; i < tl.idle.length; i++) {
      var span = document.createElement('span');
      span.className = 'idle';
      span.style.left = pct(tl.idle[i][0], total);
      span.style.width = pct(tl.idle[i][1] - tl.idle[i][0], total);
      span.title = 'inactive ' + fmt(tl.idle[i][1] - tl.idle[i][0]);
      strip.appendChild(span);
    }
    tl.markers.forEach(function (m) {
      var dot = document.createElement('button');
      dot.className = 'mark ' + m.kind;
      dot.style.left = pct(m.time, total);
      dot.title = fmt(m.time) + ' ' + m.label;
      dot.tabIndex = -1;
      dot.onclick = function () { seekTo(m.time); };
      strip.appendChild(dot);
      var item = document.createElement('li');
      var jump = document.createElement('button');
      jump.className = m.kind;
      jump.setAttribute('data-time', String(m.time));
      jump.textContent = fmt(m.time) + ' ' + m.label;
      jump.onclick = function () { seekTo(m.time); };
      item.appendChild(jump);
      list.appendChild(item);
    });
    if (tl.capped) {
      var more = document.createElement('li');
      more.textContent = 'only the first ' + MAX_MARKERS + ' markers are listed';
      list.appendChild(more);
    }
    strip.onclick = function (ev) {
      if (ev.target !== strip && !(ev.target && ev.target.className === 'idle')) return;
      var box = strip.getBoundingClientRect();
      seekTo(Math.round(((ev.clientX - box.left) / box.width) * total));
    };
  }
`;
