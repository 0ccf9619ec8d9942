import { readFile, mkdtemp } from 'node:fs/promises';
import { createLocalSink } from '../dist/sinks/index.js';
import { launchBrowser } from '../dist/src/video/index.js';
import { pathToFileURL } from 'node:url';
const events = JSON.parse(await readFile('samples/expected/long-scroll.json', 'utf8'));
const dir = await mkdtemp('/tmp/vid/p-');
const sink = createLocalSink(dir); const w = await sink.open('x', { format: 'html', gzip: false }); await w.write(events.map(e => Buffer.from(JSON.stringify(e)))); const r = await w.commit(); await sink.close();
const b = await launchBrowser(); const p = await b.newPage({ viewport: { width: 1500, height: 1000 } });
await p.goto(pathToFileURL(dir + '/' + r.key).href + '?paused&canvas=all'); await p.waitForSelector('body[data-loaded="true"]', { state: 'attached' });
const y = () => p.evaluate(() => replayer.iframe.contentWindow.scrollY);

await p.evaluate(() => { const o = replayer.applyScroll.bind(replayer); replayer.applyScroll = (d, sync) => { o(d, sync); (window.__log ||= []).push([d.id, d.y, sync, replayer.iframe.contentWindow.scrollY, new Error().stack.split('\n').slice(2,7).map(l => l.replace(/.*at /,'').replace(/\(.*:(\d+:\d+)\)/,'$1')).join(' < ')]); }; });
for (let t = 0; t <= 2100; t += 100) { await p.evaluate(async (t) => { const m = replayer.virtualDom.mirror; for (const id of m.getIds()) { const n = m.getNode(id); if (n) { delete n.scrollData; delete n.inputData; } } replayer.pause(t); await new Promise(r => requestAnimationFrame(() => r())); }, t); process.stdout.write(t + ":" + (await y()) + " "); }
console.log('step', await y(), JSON.stringify(await p.evaluate(() => window.__log))); await p.waitForTimeout(1000); console.log('step later', await y());
await b.close();
