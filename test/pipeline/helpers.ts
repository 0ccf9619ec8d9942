import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

export async function tempDir(prefix: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, 'utf8'));
}

/** Parses an output file of any format (json/ndjson, gzip or not) into its events. */
export async function readOutput(path: string): Promise<unknown[]> {
  let bytes = await readFile(path);
  if (path.endsWith('.gz')) bytes = gunzipSync(bytes);
  const text = bytes.toString('utf8');
  if (path.endsWith('.ndjson') || path.endsWith('.ndjson.gz')) {
    return text
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l));
  }
  return JSON.parse(text) as unknown[];
}

/**
 * A local target's manifest lines as the README says to read them with common tools: the snapshot (the latest line of
 * each replay folded so far), folded files a compaction left, then the log `manifest.ndjson`.
 */
export async function readManifest(dir: string): Promise<Record<string, unknown>[]> {
  const folder = join(dir, '_manifest');
  const folding = (await readdir(folder).catch(() => [] as string[])).filter((n) => n.startsWith('folding-')).sort();
  const files = [join(folder, 'snapshot.ndjson'), ...folding.map((n) => join(folder, n)), join(dir, 'manifest.ndjson')];
  const lines: Record<string, unknown>[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const l of text.split('\n')) if (l.length > 0) lines.push(JSON.parse(l) as Record<string, unknown>);
  }
  return lines;
}

/** Last manifest line per replay id. */
export function lastById(lines: Record<string, unknown>[]): Map<string, Record<string, unknown>> {
  const m = new Map<string, Record<string, unknown>>();
  for (const l of lines) m.set(l.replay_id as string, l);
  return m;
}

/** Fast retries so that fault-heavy tests stay quick (the behaviour is the same, only the waits are shorter). */
export const FAST = {
  retryBaseMs: 5,
  retryMaxMs: 40,
  transportOptions: { retry: { baseDelayMs: 5, maxDelayMs: 40, maxRetryAfterMs: 50 } },
} as const;

/** A sandbox and a temporary folder for one test: `start` them in the test, `stop` in `afterEach`. */
export class SandboxRun {
  #sandbox: Sandbox | undefined;
  #work: { dir: string; cleanup: () => Promise<void> } | undefined;

  async start(options: SandboxOptions, prefix: string): Promise<{ sb: Sandbox; dir: string }> {
    this.#sandbox = await startSandbox(options);
    this.#work = await tempDir(prefix);
    return { sb: this.#sandbox, dir: this.#work.dir };
  }

  readonly stop = async (): Promise<void> => {
    await this.#sandbox?.close();
    await this.#work?.cleanup();
    this.#sandbox = this.#work = undefined;
  };
}
