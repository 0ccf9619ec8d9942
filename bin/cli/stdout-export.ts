import { ReplayEncoder, type ByteTarget } from '../../src/cli/files.js';
import { ConfigError, replayEventBytes, type Run, type Settings } from '../../src/index.js';

/** Whether `--out` names standard output (`-`), as for most command-line tools. */
export function isStdoutTarget(out: string): boolean {
  return out === '-';
}

/**
 * `export <id> --out -`: the checks made before any request. One replay only, as `json` or `ndjson`, not gzipped
 * (a page or compressed bytes on a terminal help nobody; `--out <folder>` writes those).
 */
export function checkStdoutExport(ids: readonly string[], settings: Settings): void {
  if (ids.length !== 1) usage(`--out - writes one replay to stdout; ${ids.length} replay ids given (use --out <folder> for several)`);
  if (settings.output.format === 'html') usage('--out - takes --format json or ndjson; --format html needs --out <folder>');
  if (settings.output.gzip) usage('--out - writes plain json or ndjson; --gzip needs --out <folder>');
  if (settings.captureAssets !== undefined) usage('--out - stores no assets; --capture-assets needs --out <folder> or s3://');
}

function usage(message: string): never {
  throw new ConfigError(message, 'invalid_stdout_export');
}

/** A byte target over a stream that waits for each write to be taken (backpressure). */
function streamTarget(stream: NodeJS.WritableStream): ByteTarget {
  return {
    write: (chunk) => new Promise<void>((resolve, reject) => stream.write(chunk, (err) => (err ? reject(err) : resolve()))),
  };
}

/**
 * Streams one replay's events to stdout in the run's format; nothing else is written (no folder, no manifest). A
 * replay the API does not know throws `ReplayNotFoundError` before anything is written.
 */
export async function exportToStdout(replayId: string, run: Run, stdout: NodeJS.WritableStream): Promise<void> {
  const encoder = new ReplayEncoder(run.settings.output, streamTarget(stdout), { replayId }, { hash: false });
  try {
    for await (const batch of replayEventBytes(replayId, { run })) await encoder.write(batch);
    await encoder.finish();
  } catch (err) {
    encoder.destroy(err);
    throw err;
  }
}
