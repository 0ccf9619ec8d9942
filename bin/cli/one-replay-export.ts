import { ReplayEncoder } from '../../sinks/encode.js';
import { ConfigError, replayEventBytes, type Run, type Settings } from '../../src/index.js';
import type { Output } from './file-output.js';
import type { OutTarget } from './out-target.js';

/**
 * `export <id> --out -` or `--out <file>`: the checks made before any request. One replay only; to stdout as `json`
 * or `ndjson`, not gzipped (a page or compressed bytes on a terminal help nobody); to a file in the format its name
 * says (`--format`, when given, must agree). No asset capture (assets need a folder beside the replay).
 */
export function checkOneReplayExport(
  ids: readonly string[],
  settings: Settings,
  target: OutTarget & { kind: 'stdout' | 'file' },
  formatFlag: string | undefined,
): void {
  const out = target.kind === 'file' ? `--out ${target.path}` : '--out -';
  const where = target.kind === 'file' ? 'to one file' : 'to stdout';
  if (ids.length !== 1)
    usage(`${out} writes one replay ${where}; ${ids.length} replay ids given (use --out <folder> for several)`);
  if (settings.captureAssets !== undefined)
    usage(`${out} stores no assets; --capture-assets needs --out <folder> or s3://`);
  if (target.kind === 'file') {
    if (formatFlag !== undefined && formatFlag !== target.format)
      usage(`--format ${formatFlag} does not match ${out}: name the file .${formatFlag}, or leave --format out`);
    return;
  }
  if (settings.output.format === 'html')
    usage('--out - takes --format json or ndjson; --format html needs --out <folder> or --out <file.html>');
  if (settings.output.gzip)
    usage('--out - writes plain json or ndjson; --gzip needs --out <folder> or --out <file.json.gz>');
}

function usage(message: string): never {
  throw new ConfigError(message, 'INVALID_ONE_REPLAY_EXPORT');
}

/**
 * Streams one replay's events to `output` (stdout, or a file installed whole once complete) in the run's format;
 * nothing else is written (no folder, no manifest). A replay the API does not know throws `ReplayNotFoundError`
 * before anything is written.
 */
export async function exportOneReplay(replayId: string, run: Run, output: Output): Promise<void> {
  const encoder = new ReplayEncoder(
    run.settings.output,
    { write: (chunk) => output.write(chunk) },
    { replayId },
    { hash: false },
  );
  try {
    for await (const batch of replayEventBytes(replayId, { run })) await encoder.write(batch);
    await encoder.finish();
    await output.done();
  } catch (err) {
    encoder.destroy(err);
    await output.fail();
    throw err;
  }
}
