/** Where a command writes its one output: a stream (stdout), or a file written whole or not at all. */
import { basename, dirname } from 'node:path';
// The modules themselves, not sinks/index.js: writing one file needs no sink (no player page, no manifest).
import { describeSystemError, SinkError } from '../../sinks/errors.js';
import { TempFile } from '../../sinks/temp-file.js';
import type { CliOutput } from './context.js';
import { DataOutput } from './terminal-output.js';

export interface Output {
  write(chunk: Buffer): Promise<void>;
  done(): Promise<void>;
  fail(): Promise<void>;
}

/** stdout as an output of JSON: on a terminal, what it must not get is escaped (terminal-output.ts). */
export function streamOutput(stdout: CliOutput): Output {
  const out = new DataOutput(stdout, 'json');
  return {
    write: (chunk) => out.write(chunk),
    done: () => out.end(),
    fail: async () => undefined,
  };
}

/**
 * Writes to a temporary file beside `path` (the local sink's: a new file under a random name, never opened through a
 * link; every byte written, short writes continued) and renames it into place once complete and flushed. On any
 * failure nothing is left at `path` (an earlier file there stays as it was) and the temporary file is removed. Errors
 * name `path`, not the temporary file.
 */
export async function fileOutput(path: string): Promise<Output> {
  const failure = (err: unknown): SinkError =>
    new SinkError('SINK_IO', `cannot write ${path}: ${describeSystemError(err)}`, { target: path, cause: err });
  let file: TempFile;
  try {
    file = await TempFile.create(dirname(path), basename(path));
  } catch (err) {
    throw failure(err);
  }
  return {
    write: async (chunk) => {
      try {
        await file.out.write(chunk);
      } catch (err) {
        throw failure(err);
      }
    },
    done: async () => {
      try {
        await file.drain();
        await file.sync();
        await file.install();
      } catch (err) {
        throw failure(err);
      }
    },
    fail: () => file.discard(),
  };
}
