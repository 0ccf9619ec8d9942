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

/** The API's answers (spec document 3): a page of replays, a page of files (presigned URLs). */
interface ReplayPage {
  session_replays: Array<{ replay_id: string; device_id: string; session_id: string; platform_id: number }>;
  next_page_token: string | null;
}
interface FilesPage {
  files: string[];
  next_page_token: string | null;
}

/** Presigned file URLs of the sandbox, their paths ending in the sample files' names under `/v<version>/`. */
function expectFiles(files: readonly string[], version: '2' | '3'): void {
  expect(files.map((f) => basename(new URL(f).pathname))).toEqual(FIRST.files[version].map((f) => basename(f)));
  for (const f of files) {
    expect(new URL(f).pathname).toContain(`/v${version}/`);
    expect(f).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/__storage\/.*X-Amz-Signature=/);
  }
}

/** Session replay through `replay-export api`, against the sandbox's samples. */
export const EXAMPLES: readonly ApiExample[] = [
  {
    operation: 'replay.list',
    args: ['--param', 'pageSize=2'],
    check(result) {
      const page = result as ReplayPage;
      expect(page.session_replays.map((r) => r.replay_id)).toEqual(NEWEST_FIRST.slice(0, 2));
      expect(page.next_page_token).toEqual(expect.any(String));
      for (const r of page.session_replays) expect(r.replay_id).toBe(`${r.device_id}/${r.session_id}`);
    },
  },
  {
    operation: 'replay.list',
    args: ['--param', 'pageSize=2', '--param', 'sortOrder=asc', '--paginate'],
    check(result) {
      const pages = result as ReplayPage[];
      expect(pages.flatMap((p) => p.session_replays).map((r) => r.replay_id)).toEqual([...NEWEST_FIRST].reverse());
      expect(pages.at(-1)!.next_page_token).toBeNull();
    },
  },
  {
    operation: 'replay.list',
    args: ['--param', `platformId=${FIRST.platform_id}`],
    check(result) {
      const page = result as ReplayPage;
      expect(page.session_replays.length).toBeGreaterThan(0);
      expect(page.session_replays.map((r) => r.replay_id)).toContain(FIRST.replay_id);
      for (const r of page.session_replays) expect(r.platform_id).toBe(FIRST.platform_id);
    },
  },
  {
    operation: 'replay.files',
    args: ['--param', `replayId=${FIRST.replay_id}`],
    check(result) {
      const page = result as FilesPage;
      expectFiles(page.files, '3');
      expect(page.next_page_token).toBeNull();
    },
  },
  {
    operation: 'replay.files',
    args: ['--param', `replayId=${FIRST.replay_id}`, '--param', 'version=2', '--param', 'pageSize=1', '--paginate'],
    check(result) {
      expectFiles(
        (result as FilesPage[]).flatMap((p) => p.files),
        '2',
      );
    },
  },
];
