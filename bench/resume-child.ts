/**
 * Child of the bench's resume part: reads a target's manifest the way a run resumes it and asks, for every replay of
 * the synthetic archive, whether it is done; prints one JSON line (wall time, peak RSS, how many were done).
 *
 *   node dist/bench/launch.js dist/bench/resume-child.js <folder> <replays> state|entries
 *   node dist/bench/launch.js dist/bench/resume-child.js s3://bucket/prefix <replays> s3 <endpoint>
 *
 * `state`: readResumeState (what `archive` uses). `entries`: readManifestState (whole entries: the baseline).
 * `s3`: readResumeState through the S3 sink. `fold`: folds the local manifest into its snapshot (compactManifest).
 */

import { createLocalSink, createS3Sink } from '../sinks/index.js';
import { archiveOfSink } from '../sinks/archive.js';
import { readManifestState } from '../src/pipeline/manifest.js';
import { readResumeState } from '../src/pipeline/resume-state.js';
import { syntheticReplayId } from './resume-data.js';

const [dir, count, mode, endpoint] = process.argv.slice(2);
const replays = Number(count);
if (
  dir === undefined ||
  !Number.isInteger(replays) ||
  (mode !== 'state' && mode !== 'entries' && mode !== 's3' && mode !== 'fold')
) {
  throw new Error('usage: resume-child <folder> <replays> state|entries|fold, or <s3 url> <replays> s3 <endpoint>');
}
const sink =
  mode === 's3'
    ? createS3Sink(dir, {
        endpoint: endpoint!,
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      })
    : createLocalSink(dir);
const output = { format: 'json', gzip: true } as const;
const started = performance.now();
let done = 0;
if (mode === 'fold') {
  done = (await sink.compactManifest!({ layout: 'all' })).entries;
} else if (mode === 'state' || mode === 's3') {
  const state = await readResumeState(archiveOfSink(sink).manifest, {
    keyFor: (id) => sink.keyFor(id, output),
    now: Date.now(),
  });
  for (let i = 0; i < replays; i++) if (state.doneAtKey(syntheticReplayId(i))) done++;
} else {
  const state = await readManifestState(sink);
  for (let i = 0; i < replays; i++) {
    const id = syntheticReplayId(i);
    const e = state.get(id);
    if (e?.status === 'ok' && e.key === sink.keyFor(id, output)) done++;
  }
}
const ms = performance.now() - started;
await sink.close();
process.stdout.write(JSON.stringify({ mode, ms, done, maxRssBytes: process.resourceUsage().maxRSS * 1024 }) + '\n');
