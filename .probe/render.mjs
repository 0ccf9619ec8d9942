import { readFile } from 'node:fs/promises';
import { renderEvents } from '../dist/src/video/render.js';
const name = process.argv[2] ?? 'form-typing';
const ext = process.argv[3] ?? 'mp4';
const events = JSON.parse(await readFile(`samples/expected/${name}.json`, 'utf8'));
async function* gen() { yield events.map((e) => Buffer.from(JSON.stringify(e))); }
const t0 = performance.now();
const r = await renderEvents(gen(), { out: `/tmp/vid/${name}.${ext}`, title: name, ...(process.env.TO ? { to: Number(process.env.TO) } : {}), onProgress: (p) => { if (p.frame === 1) console.log('first frame at', Math.round(performance.now() - t0)); } });
const ms = performance.now() - t0;
console.log(JSON.stringify(r), 'ms', Math.round(ms), 'x', ((r.to - r.from) / ms).toFixed(2));
