#!/usr/bin/env node
import { main } from './cli/program.js';

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`replay-export: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
