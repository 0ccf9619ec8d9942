/**
 * Resume at scale: a synthetic archive of N replays (a local manifest as nightly runs leave it) resumed by a child
 * process the way `archive` does (readResumeState), against the same manifest read into whole entries
 * (readManifestState, what runs did before) in the same run: wall time and peak RSS of each.
 */

import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { runReporting } from './child-runner.js';
import { writeSyntheticManifest } from './resume-data.js';

const CHILD = fileURLToPath(new URL('./resume-child.js', import.meta.url));

interface ResumeChildReport {
  mode: 'state' | 'entries' | 'fold';
  ms: number;
  done: number;
  maxRssBytes: number;
}

export interface ResumeResult {
  replays: number;
  manifestBytes: number;
  state: ResumeChildReport;
  entries?: ResumeChildReport | { failed: string } | undefined;
  /** Folding the same manifest into its snapshot (what `archive` does at the end of a run). */
  fold: ResumeChildReport;
  checks: string[];
}

export async function measureResume(opts: {
  replays: number;
  workDir: string;
  entriesHeapMb: number;
  log: (line: string) => void;
}): Promise<ResumeResult> {
  const dir = join(opts.workDir, 'resume');
  try {
    opts.log(`  writing a manifest of ${opts.replays} replays`);
    const manifestBytes = await writeSyntheticManifest(dir, opts.replays);
    const checks: string[] = [];
    const state = await runReporting<ResumeChildReport>(CHILD, [dir, String(opts.replays), 'state'], {});
    if (state.done !== opts.replays)
      throw new Error(`bench: resume found ${state.done} of ${opts.replays} replays done`);
    checks.push(`readResumeState found all ${opts.replays} replays done`);
    let entries: ResumeResult['entries'];
    try {
      // The baseline may not fit: it runs with a heap cap so that it fails rather than swaps.
      entries = await runReporting<ResumeChildReport>(CHILD, [dir, String(opts.replays), 'entries'], {
        BENCH_NODE_FLAGS: JSON.stringify([`--max-old-space-size=${opts.entriesHeapMb}`]),
      });
      if (entries.done !== opts.replays)
        throw new Error(`bench: the baseline found ${entries.done} of ${opts.replays} replays done`);
    } catch (err) {
      entries = {
        failed: `did not complete within a ${opts.entriesHeapMb} MiB heap: ${(err as Error).message.split('\n')[0]!.slice(0, 160)}`,
      };
    }
    // Last: the fold rewrites the folder.
    const fold = await runReporting<ResumeChildReport>(CHILD, [dir, String(opts.replays), 'fold'], {});
    if (fold.done !== opts.replays) throw new Error(`bench: the fold wrote ${fold.done} of ${opts.replays} replays`);
    checks.push(`the fold wrote a snapshot of all ${opts.replays} replays (the settling lines folded away)`);
    return { replays: opts.replays, manifestBytes, state, entries, fold, checks };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
