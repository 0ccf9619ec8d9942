/**
 * The view part (issue #41): `view` at N replays — its first index page, peak RSS, a filter, a sort, a search —
 * on the catalogue, against the in-memory index it had before (bench/in-memory-index.ts) in the same run, and the
 * catalogue's first build; local, and S3 on s3rver. Each figure from a child process of its own
 * (bench/view-child.ts): `cold` builds the catalogue (an empty cache), `warm` opens it.
 */

import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { runReporting } from './child-runner.js';
import type { Row } from './report.js';
import { uploadSnapshot } from './measure-resume-s3.js';
import { viewEntry, writeViewManifest } from './view-data.js';

const CHILD = fileURLToPath(new URL('./view-child.js', import.meta.url));
const BUCKET = 'bench';

export const VIEW_TARGETS = {
  firstPageMs: 1000,
  buildMs: 60_000,
  rssBytes: 200e6,
  queryMs: 300,
} as const;

type Figures = Record<string, number> & { firstPageMs: number; maxRssBytes: number; replays: number };

export interface ViewSide {
  replays: number;
  cold: Figures;
  warm: Figures;
}

export interface ViewBenchResult {
  local: ViewSide & { baseline: Figures };
  s3?: ViewSide;
}

async function side(target: string, cache: string, endpoint?: string): Promise<{ cold: Figures; warm: Figures }> {
  const args = ['view', target, cache, ...(endpoint === undefined ? [] : [endpoint])];
  const cold = await runReporting<Figures>(CHILD, args, {});
  const warm = await runReporting<Figures>(CHILD, args, {});
  return { cold, warm };
}

export async function measureView(opts: {
  replays: number;
  s3Replays: number;
  workDir: string;
  log: (line: string) => void;
}): Promise<ViewBenchResult> {
  const dir = await mkdtemp(join(opts.workDir, 'view-'));
  try {
    const archive = join(dir, 'local');
    opts.log(`  writing a manifest of ${opts.replays} replays (a year, with facts)`);
    await writeViewManifest(archive, opts.replays);
    opts.log('  baseline: the in-memory index (child)');
    const baseline = await runReporting<Figures>(CHILD, ['baseline', archive], {});
    opts.log('  catalogue: first build, then opened (children)');
    const local = { replays: opts.replays, baseline, ...(await side(archive, join(dir, 'cache-local'))) };
    if (opts.s3Replays <= 0) return { local };
    opts.log(`  S3 (s3rver): a folded manifest of ${opts.s3Replays} replays, first build, then opened (children)`);
    const s3 = await measureS3(dir, opts.s3Replays);
    return { local, s3 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function measureS3(dir: string, replays: number): Promise<ViewSide> {
  const folder = join(dir, 's3rver');
  await mkdir(folder);
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: folder,
    silent: true,
    configureBuckets: [{ name: BUCKET }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  try {
    await uploadSnapshot(client, replays, (i) => JSON.stringify(viewEntry(i, replays)));
    return { replays, ...(await side(`s3://${BUCKET}/archive`, join(dir, 'cache-s3'), endpoint)) };
  } finally {
    client.destroy();
    await server.close();
  }
}

const secs = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);
const mb = (n: number): string => `${(n / 1e6).toFixed(0)} MB`;

function sideRows(where: string, s: ViewSide, baseline?: Figures): Row[] {
  const ratio = (a: number, b: number | undefined): string => (b === undefined ? '' : `${(a / b).toFixed(3)}×`);
  const rows: Row[] = [
    {
      figure: `view, ${where}, ${s.replays} replays: catalogue's first build (child, empty cache; first page included)`,
      subject: `${secs(s.cold.buildMs ?? 0)} (first page ${secs(s.cold.firstPageMs)}; the child's CPU ${secs(s.cold.cpuMs ?? 0)})`,
      baseline: baseline ? `in-memory index: ${secs(baseline.firstPageMs)} (CPU ${secs(baseline.cpuMs ?? 0)})` : '',
      ratio: ratio(s.cold.firstPageMs, baseline?.firstPageMs),
      target: `build ≤ ${secs(VIEW_TARGETS.buildMs)}`,
      pass: (s.cold.buildMs ?? 0) <= VIEW_TARGETS.buildMs,
    },
    {
      figure: `view, ${where}: first index page once the catalogue exists (start to page)`,
      subject: secs(s.warm.firstPageMs),
      baseline: baseline ? secs(baseline.firstPageMs) : '',
      ratio: ratio(s.warm.firstPageMs, baseline?.firstPageMs),
      target: `≤ ${secs(VIEW_TARGETS.firstPageMs)}`,
      pass: s.warm.firstPageMs <= VIEW_TARGETS.firstPageMs,
    },
    {
      figure: `view, ${where}: peak RSS, opened / while building`,
      subject: `${mb(s.warm.maxRssBytes)} / ${mb(s.cold.maxRssBytes)}`,
      baseline: baseline ? mb(baseline.maxRssBytes) : '',
      ratio: ratio(s.warm.maxRssBytes, baseline?.maxRssBytes),
      target: `≤ ${mb(VIEW_TARGETS.rssBytes)}`,
      pass: s.warm.maxRssBytes <= VIEW_TARGETS.rssBytes,
    },
  ];
  const questions = Object.keys(s.warm).filter((k) => /^(filter|sort|search|page)/.test(k));
  for (const q of questions) {
    rows.push({
      figure: `view, ${where}: ${q} (HTTP, first page of it)`,
      subject: secs(s.warm[q]!),
      baseline: baseline?.[q] === undefined ? '' : secs(baseline[q]!),
      ratio: ratio(s.warm[q]!, baseline?.[q]),
      target: `≤ ${secs(VIEW_TARGETS.queryMs)}`,
      pass: s.warm[q]! <= VIEW_TARGETS.queryMs,
    });
  }
  return rows;
}

/** The part's rows of the bench's table. */
export function viewRows(r: ViewBenchResult): Row[] {
  return [...sideRows('local', r.local, r.local.baseline), ...(r.s3 ? sideRows('S3 (s3rver)', r.s3) : [])];
}
