/**
 * A hostile page recorded with rrweb in Chromium: every script and request vector in the full snapshot and again as
 * mutations. Each vector, if it ever runs, marks `top.__hits`, posts `pwned:<name>` to the top window and requests
 * OUTSIDE/hit/<name>. Shared by the player's and the video's safety tests.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRecorder } from '../../samples/lib/browser-recorder.js';
import type { Scenario } from '../../samples/lib/scenarios.js';
import { serveFolder } from '../../samples/lib/static-server.js';

/** Where the hostile page's requests go (nothing listens; every test refuses requests anyway). */
export const OUTSIDE = 'http://127.0.0.1:9';
/** What each vector runs when it runs: marks a global, posts to the player and makes a request (so any check sees it). */
const hit = (name: string): string =>
  `try{(top.__hits=top.__hits||[]).push('${name}');top.postMessage('pwned:${name}','*');new Image().src='${OUTSIDE}/hit/${name}'}catch(e){}`;

const HOSTILE_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>hostile</title>
<style>@keyframes spin{from{opacity:.9}to{opacity:1}} .anim{animation:spin .2s}
.bg{width:40px;height:40px;background:url(${OUTSIDE}/bg.png)}</style></head><body>
<h1>hostile page</h1>
<img id="v-img" src="/missing-1.png" onerror="${hit('img')}">
<svg width="20" height="20"><image href="/missing-2.png" onerror="${hit('svg')}"/></svg>
<div class="anim" onanimationstart="${hit('anim')}">animated</div>
<details open ontoggle="${hit('toggle')}"><summary>s</summary>d</details>
<iframe id="v-srcdoc" srcdoc="<script>${hit('srcdoc').replace(/'/g, '&#39;')}</script>"></iframe>
<a id="v-js" href="javascript:${hit('js')}">link</a>
<form id="v-form" action="${OUTSIDE}/collect"><input name="q" value="x"><button formaction="${OUTSIDE}/b">go</button></form>
<div class="bg">bg</div>
<img src="${OUTSIDE}/pixel.gif" width="1" height="1">
<object data="${OUTSIDE}/x.bin" width="10" height="10"></object>
<embed src="${OUTSIDE}/e.bin" width="10" height="10">
<div id="later"></div>
</body></html>`;

const hostileScenario: Scenario = {
  name: 'hostile',
  page: 'hostile.html',
  retentionInDays: 30,
  viewport: { width: 800, height: 600 },
  recordOptions: {},
  async drive(page) {
    // The same vectors again, this time arriving as mutations.
    await page.evaluate(`(function () {
      var later = document.getElementById('later');
      later.innerHTML = '<img src="/missing-3.png" onerror="${hit('m-img').replace(/'/g, "\\'")}">' +
        '<iframe srcdoc="&lt;script&gt;${hit('m-srcdoc').replace(/'/g, "\\'")}&lt;/script&gt;"></iframe>' +
        '<a href="javascript:void 0">m-link</a>';
      document.getElementById('v-img').setAttribute('onload', ${JSON.stringify(hit('m-attr'))});
      document.getElementById('v-js').setAttribute('href', 'javascript:' + ${JSON.stringify(hit('m-js'))});
      document.getElementById('v-form').setAttribute('action', '${OUTSIDE}/collect2');
      var meta = document.createElement('meta');
      meta.httpEquiv = 'refresh'; meta.content = '600;url=${OUTSIDE}/refresh';
      document.head.appendChild(meta);
      var base = document.createElement('base');
      base.href = '${OUTSIDE}/base/';
      document.head.appendChild(base);
    })()`);
    await page.waitForTimeout(500);
  },
};

/** Records the hostile page (served on loopback) and returns its events. */
export async function recordHostile(): Promise<unknown[]> {
  const site = await mkdtemp(join(tmpdir(), 'replay-export-hostile-'));
  await writeFile(join(site, 'hostile.html'), HOSTILE_PAGE);
  const server = await serveFolder(site, 0);
  const recorder = await openRecorder();
  let events: unknown[];
  try {
    events = await recorder.record(hostileScenario, server.origin, {});
  } finally {
    await recorder.close();
    await server.close();
    await rm(site, { recursive: true, force: true });
  }
  return events;
}
