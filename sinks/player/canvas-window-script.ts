/**
 * Browser code of the player's canvas window, inlined into PLAYER_SCRIPT's scope. With rrweb's canvas replay, every
 * full-snapshot rebuild decodes ahead every canvas frame the Replayer holds (an image decode each): a 30 MB page of
 * canvas frames kept the tab busy for ~18 s before it answered. So the Replayer is given every other event, but of
 * each canvas only the frames it needs: from the last whole frame at or before the position, up to a short way
 * ahead; the rest are added as playback nears them. A seek builds a fresh Replayer from the same rule.
 */
export const CANVAS_WINDOW_SCRIPT = String.raw`
  // ---- canvas window: only the canvas frames near the position reach the Replayer ---------------------------
  function isCanvasEvent(e) { return e && e.type === 3 && e.data && e.data.source === 9; }
  // rrweb's sampled canvas recording sends whole frames: clear the canvas, then draw one image over it. Frames
  // before the last whole one change nothing that is shown.
  function isWholeFrame(e) {
    var c = e.data.commands;
    return Array.isArray(c) && c.length === 2 && c[0] && c[0].property === 'clearRect' && c[1] && c[1].property === 'drawImage';
  }
  var canvasAt = [], canvasNext = 0, canvasFedUntil = -Infinity;
  function aheadMs() { return 5000 + 2000 * Number(speed.value || 1); }
  /** The events of a Replayer positioned at t (ms from the start); canvas events past the window are left out. */
  function windowAt(t) {
    var start = all[0].timestamp, at = start + t, until = at + aheadMs(), lastWhole = Object.create(null), out = [];
    canvasAt = [];
    for (var i = 0; i < all.length; i++) {
      var e = all[i];
      if (isCanvasEvent(e) && e.timestamp <= at && isWholeFrame(e)) lastWhole[e.data.id] = i;
    }
    for (var j = 0; j < all.length; j++) {
      var ev = all[j];
      if (!isCanvasEvent(ev)) { out.push(ev); continue; }
      var from = lastWhole[ev.data.id];
      if (ev.timestamp <= at) { if (from === undefined || j >= from) out.push(ev); continue; }
      if (ev.timestamp <= until || j === all.length - 1) out.push(ev);
      else canvasAt.push(j);
    }
    canvasNext = 0;
    canvasFedUntil = until;
    return out;
  }
  /** Adds the canvas frames that are now within the window ahead of the position. */
  function feedCanvas() {
    if (!replayer || !windowed) return;
    var until = all[0].timestamp + now() + aheadMs();
    while (canvasNext < canvasAt.length && all[canvasAt[canvasNext]].timestamp <= until) replayer.addEvent(all[canvasAt[canvasNext++]]);
    canvasFedUntil = Math.max(canvasFedUntil, until);
  }
  /** Events arriving later (the shared player streams them): canvas frames past the window wait for feedCanvas. */
  function offerLate(e, index) {
    if (windowed && isCanvasEvent(e) && e.timestamp > canvasFedUntil) { canvasAt.push(index); return; }
    replayer.addEvent(e);
  }
  var windowed = false;
`;
