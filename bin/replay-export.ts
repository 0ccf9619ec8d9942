#!/usr/bin/env node
import { main } from './cli/program.js';

// A reader that went away (`replay-export list | head -1`) ends the command quietly, as `git log | head` does:
// nothing more can be said to it, and a stack trace about it would only be noise.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(stream === process.stdout ? 0 : (process.exitCode as number | undefined) ?? 1);
    throw err;
  });
}

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
