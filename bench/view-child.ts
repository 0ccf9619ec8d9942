/**
 * Child of the bench's view part: one process, one measure, one JSON line (times in ms, peak RSS).
 *
 *   node dist/bench/launch.js dist/bench/view-child.js baseline <folder>
 *   node dist/bench/launch.js dist/bench/view-child.js view <folder | s3://bucket/prefix> <catalogue dir> [endpoint]
 *
 * `baseline`: the in-memory index `view` had before the catalogue (bench/in-memory-index.ts): the whole manifest read
 * into rows, then its first page, a filter, a sort and a search. `view`: `startViewServer` on the catalogue (built
 * first when the cache has none), then the same questions over HTTP.
 */

import { openArchive } from '../sinks/archive.js';
import { startViewServer } from '../src/view/index.js';
import { ArchiveIndex } from './in-memory-index.js';

const [mode, target, cacheDir, endpoint] = process.argv.slice(2);

/** The questions both sides answer: [name, the catalogue's query string, the in-memory index's filter]. */
export const QUESTIONS = [
  ['filter: errors', 'errors=1', { errors: true }],
  ['sort: duration', 'sort=-duration', { sort: 'duration' }],
  ['search: a page URL', 'url=p/99', { url: 'p/99' }],
] as const;

function timed<T>(f: () => T): [T, number] {
  const t = performance.now();
  const v = f();
  return [v, performance.now() - t];
}

async function baseline(): Promise<Record<string, number>> {
  const started = performance.now();
  const archive = await openArchive(target!, { create: false });
  const index = await ArchiveIndex.load(archive);
  // The old index's order was oldest first; its newest first is its last page.
  const last = Math.ceil(index.size / 100);
  index.page({}, last, 100);
  const out: Record<string, number> = { firstPageMs: performance.now() - started, replays: index.size };
  for (const [name, , filter] of QUESTIONS) out[name] = timed(() => index.page(filter, 1, 100))[1];
  await archive.close();
  return out;
}

async function get(url: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(url);
  const body = await res.text();
  if (res.status !== 200 || !body.includes('<tbody>')) throw new Error(`bench: ${url} answered ${res.status}`);
  return performance.now() - t;
}

async function view(): Promise<Record<string, number>> {
  const started = performance.now();
  let buildMs = 0;
  const s3 =
    endpoint === undefined
      ? {}
      : { endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } };
  const server = await startViewServer({
    out: target!,
    sinkOptions: { s3 },
    catalogue: { dir: cacheDir!, onBuild: (r) => void (buildMs = r.ms) },
  });
  await get(server.url);
  const out: Record<string, number> = { firstPageMs: performance.now() - started, buildMs, replays: server.replays };
  for (const [name, query] of QUESTIONS) out[name] = await get(`${server.url}?${query}`);
  out['search: words'] = await get(`${server.url}?q=basket7`);
  out['filter + sort: errors, rage clicks, by clicks'] = await get(`${server.url}?errors=1&rage=1&sort=clicks`);
  out['page 5,000'] = await get(`${server.url}?page=5000`);
  out['page past the end'] = await get(`${server.url}?page=999999`);
  await server.close();
  return out;
}

const result = mode === 'baseline' ? await baseline() : await view();
// CPU time beside the wall: on a shared machine the wall waits for the processor, the CPU time does not.
const usage = process.resourceUsage();
const cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
process.stdout.write(JSON.stringify({ mode, ...result, cpuMs, maxRssBytes: usage.maxRSS * 1024 }) + '\n');
