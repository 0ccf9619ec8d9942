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

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`replay-export: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
