#!/usr/bin/env node
import { dropSqliteWarning } from '../src/catalogue/sqlite-warning.js';
import { main } from './cli/program.js';

// node:sqlite's ExperimentalWarning (Node 22), when `view` or `find` first loads it: dropped in the CLI only.
dropSqliteWarning();

// A reader that went away ends what it read, not the work. stdout: the command's output has no one to go to
// (`replay-export list | head -1`), so the command ends quietly, exit 0, as `git log | head` does. stderr: only the
// messages are lost (`archive … 2>&1 | head -2`, a log collector gone): the run goes on to its end, writes its
// manifest, removes its temporary files and keeps its exit code; nothing more is written to stderr.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
let stderrGone = false;
process.stderr.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED' || stderrGone) {
    stderrGone = true;
    return;
  }
  throw err;
});
const writeStderr = process.stderr.write.bind(process.stderr) as (...args: unknown[]) => boolean;
process.stderr.write = ((...args: unknown[]): boolean => {
  if (!stderrGone) return writeStderr(...args);
  const callback = args.find((a) => typeof a === 'function') as (() => void) | undefined;
  if (callback) queueMicrotask(callback);
  return true;
}) as typeof process.stderr.write;

/**
 * Ends the process as soon as stdout and stderr have taken what was written. Without it every command lingered
 * ~0.25 s after its work was done, for V8's background compile of undici's llhttp WebAssembly module
 * (nodejs/help#2823): nothing of ours is left running once `main` has settled.
 */
function exitWhenWritten(code: number): void {
  process.exitCode = code;
  let pending = 2;
  const flushed = (): void => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', flushed);
  process.stderr.write('', flushed);
}

main(process.argv).then(exitWhenWritten, (err: unknown) => {
  process.stderr.write(`replay-export: ${err instanceof Error ? err.message : String(err)}\n`);
  exitWhenWritten(1);
});
