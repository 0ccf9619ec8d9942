import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect } from 'vitest';
import { packageRoot } from '../../../src/util/package-root.js';
import type { ApiExample } from './types.js';

/** The samples the sandbox serves by default (samples/index.json). */
interface Sample {
  replay_id: string;
  platform_id: number;
  start_time: string;
  files: Record<'2' | '3', string[]>;
}
const SAMPLES = (
  JSON.parse(readFileSync(join(packageRoot(), 'samples', 'index.json'), 'utf8')) as { replays: Sample[] }
).replays;
/** Replay ids in the sandbox's default order: newest start first. */
const NEWEST_FIRST = [...SAMPLES]
  .sort((a, b) => Date.parse(b.start_time) - Date.parse(a.start_time))
  .map((s) => s.replay_id);
const FIRST = SAMPLES[0]!;

interface ReplayPage {
  replays: Array<{ replay_id: string; device_id: string; session_id: string; platform_id: number }>;
  nextPageToken: string | null;
}
interface FilesPage {
  files: Array<{ url: string; key: string }>;
  nextPageToken: string | null;
}

/** A presigned file URL of the sandbox, and its key ending in the sample file's name under `/v<version>/`. */
function expectFiles(files: ReadonlyArray<{ url: string; key: string }>, version: '2' | '3'): void {
  expect(files.map((f) => basename(f.key))).toEqual(FIRST.files[version].map((f) => basename(f)));
  for (const f of files) {
    expect(f.key).toContain(`/v${version}/`);
    expect(f.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/__storage\/.*X-Amz-Signature=/);
  }
}

/** Session replay through `replay-export api`, against the sandbox's samples. */
export const EXAMPLES: readonly ApiExample[] = [
  {
    operation: 'replay.list',
    args: ['--param', 'pageSize=2'],
    check(result) {
      const page = result as ReplayPage;
      expect(page.replays.map((r) => r.replay_id)).toEqual(NEWEST_FIRST.slice(0, 2));
      expect(page.nextPageToken).toEqual(expect.any(String));
      for (const r of page.replays) expect(r.replay_id).toBe(`${r.device_id}/${r.session_id}`);
    },
  },
  {
    operation: 'replay.list',
    args: ['--param', 'pageSize=2', '--param', 'sortOrder=asc', '--paginate'],
    check(result) {
      const records = result as ReplayPage['replays'];
      expect(records.map((r) => r.replay_id)).toEqual([...NEWEST_FIRST].reverse());
    },
  },
  {
    operation: 'replay.list',
    args: ['--param', `platformId=${FIRST.platform_id}`],
    check(result) {
      const page = result as ReplayPage;
      expect(page.replays.length).toBeGreaterThan(0);
      expect(page.replays.map((r) => r.replay_id)).toContain(FIRST.replay_id);
      for (const r of page.replays) expect(r.platform_id).toBe(FIRST.platform_id);
    },
  },
  {
    operation: 'replay.files',
    args: ['--param', `replayId=${FIRST.replay_id}`],
    check(result) {
      const page = result as FilesPage;
      expectFiles(page.files, '3');
      expect(page.nextPageToken).toBeNull();
    },
  },
  {
    operation: 'replay.files',
    args: ['--param', `replayId=${FIRST.replay_id}`, '--param', 'version=2', '--param', 'pageSize=1', '--paginate'],
    check(result) {
      expectFiles(result as FilesPage['files'], '2');
    },
  },
];
