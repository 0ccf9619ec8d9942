/**
 * Browser code of the player's viewer controls, inlined into PLAYER_SCRIPT's scope: the replay scaled to fit the
 * window, fullscreen, the recorded URL and start date, and the keyboard (Space, ←/→ ±5 s, Home/End, F). Keys are
 * the viewer's: the replayed document is inert and never receives them.
 */
export const CONTROLS_SCRIPT = String.raw`
  // ---- viewer controls: fit, fullscreen, URL and date, keyboard --------------------------------------------
  var info = document.getElementById('info');
  var fullscreen = document.getElementById('fullscreen');
  var skip = document.getElementById('skip');
  function fit() {
    if (!replayer || !replayer.wrapper || !replayer.iframe) return;
    // The frame's layout size (its border included), else the recorded size rrweb gave it.
    var w = replayer.iframe.offsetWidth || Number(replayer.iframe.width), h = replayer.iframe.offsetHeight || Number(replayer.iframe.height);
    if (!w || !h) return;
    var box = stage.getBoundingClientRect();
    var room = Math.max(100, window.innerHeight - box.top - 8);
    var scale = Math.min(1, stage.clientWidth / w, room / h);
    replayer.wrapper.style.transformOrigin = '0 0';
    replayer.wrapper.style.transform = 'scale(' + scale + ')';
    stage.style.height = Math.ceil(h * scale) + 'px';
    stage.setAttribute('data-scale', scale.toFixed(3));
  }
  window.addEventListener('resize', fit);
  function utc(ms) { return new Date(ms).toISOString().slice(0, 19).replace('T', ' ') + ' UTC'; }
  /** The page shown at replay time t (the last Meta event at or before it, else the first) and the recording's start. */
  function describe(t) {
    var href = '', start = all.length ? all[0].timestamp : 0;
    for (var i = 0; i < all.length; i++) {
      var e = all[i];
      if (href && e.timestamp - start > t) break;
      if (e.type === 4 && e.data && typeof e.data.href === 'string') href = e.data.href;
    }
    return (href ? clip(href, 120) + ' · ' : '') + 'recorded ' + utc(start);
  }
  function toggleFullscreen() {
    document.body.setAttribute('data-fullscreen-requested', String(!document.fullscreenElement));
    if (document.fullscreenElement) { if (document.exitFullscreen) document.exitFullscreen().catch(function () {}); }
    else if (document.documentElement.requestFullscreen) document.documentElement.requestFullscreen().catch(function () {});
  }
  document.addEventListener('fullscreenchange', function () { setTimeout(fit, 50); });
  function togglePlay() { play.click(); }
  function jump(t) { if (replayer) goTo(Math.max(0, Math.min(meta.totalTime, t))); }
  document.addEventListener('keydown', function (ev) {
    if (!replayer || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var tag = ev.target && ev.target.tagName;
    if (tag === 'SELECT' || (tag === 'INPUT' && ev.target.type !== 'range' && ev.target.type !== 'checkbox')) return;
    var key = ev.key, handled = true;
    if (key === ' ' || key === 'Spacebar') togglePlay();
    else if (key === 'ArrowRight') jump(now() + 5000);
    else if (key === 'ArrowLeft') jump(now() - 5000);
    else if (key === 'Home') jump(0);
    else if (key === 'End') jump(meta.totalTime);
    else if (key === 'f' || key === 'F') toggleFullscreen();
    else handled = false;
    if (handled) { ev.preventDefault(); ev.stopPropagation(); }
  }, true);
  // A focused button would also act on the Space key's release: the key is the player's.
  document.addEventListener('keyup', function (ev) { if (ev.key === ' ') ev.preventDefault(); }, true);
`;
