/** What the manifest tests of folds share: entries, the state a manifest reads as, and a fold in a child process. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ManifestEntry, ReplayStatus, Sink } from '../../sinks/sink.js';
import { packageRoot } from '../../src/util/package-root.js';
import { line } from '../sinks/helpers/entries.js';

export const STATUSES: ReplayStatus[] = ['failed', 'skipped', 'ok'];

/** An entry recorded `at` ms after a fixed time (so that the entries of one replay have an order). */
export const entry = (
  id: string,
  status: ReplayStatus,
  at: number,
  extra: Record<string, unknown> = {},
): ManifestEntry =>
  line({
    replay_id: id,
    status,
    recorded_at: new Date(1_763_000_000_000 + at).toISOString(),
    ...extra,
  });

/**
 * The state a sink's manifest reads as: the last entry of each replay (what every run decides from), of the replays
 * `keep` takes when given; the sink is closed after.
 */
export async function stateOfSink(sink: Sink, keep?: (id: string) => boolean): Promise<Map<string, ManifestEntry>> {
  try {
    const state = new Map<string, ManifestEntry>();
    for await (const e of sink.readManifest(keep))
      if (keep === undefined || keep(e.replay_id)) state.set(e.replay_id, e);
    return state;
  } finally {
    await sink.close();
  }
}

/** A child process folding a manifest (killable at any moment): `started` once it is about to fold. */
export interface FoldChild {
  started: Promise<void>;
  done: Promise<number | null>;
  kill(): void;
}

/**
 * Runs `compactManifest({ layout: 'all' })` in a new process on the sink `openSink` (an expression over `createLocalSink`,
 * `createS3Sink` and `process.argv`) builds from the built package, given `args`.
 */
export function spawnFold(openSink: string, args: string[]): FoldChild {
  const script = `import { createLocalSink, createS3Sink } from ${JSON.stringify(join(packageRoot(), 'dist', 'sinks', 'index.js'))};
    const sink = ${openSink};
    process.stdout.write('go\\n');
    await sink.compactManifest({ layout: 'all' });
    await sink.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const started = new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  const done = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { started, done, kill: () => child.kill('SIGKILL') };
}

/** How long one complete fold takes (from its start), checked to succeed: the kills of a test are spread over it. */
export async function timeFold(fold: FoldChild): Promise<number> {
  await fold.started;
  const t0 = Date.now();
  expect(await fold.done).toBe(0);
  return Date.now() - t0;
}

/** Starts a fold and kills it `ms` after it started. */
export async function killFoldAfter(fold: FoldChild, ms: number): Promise<void> {
  await fold.started;
  await new Promise((r) => setTimeout(r, ms));
  fold.kill();
  await fold.done;
}
