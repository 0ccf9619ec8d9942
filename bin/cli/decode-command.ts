import { createReadStream } from 'node:fs';
import { basename, dirname } from 'node:path';
import { decodeEventBytes, ReplayBudget, type FileVersion } from '../../decoders/index.js';
// The modules themselves, not sinks/index.js: decoding files needs no sink (no player page, no manifest).
import { describeSystemError, SinkError } from '../../src/cli/files.js';
import { TempFile } from '../../src/cli/files.js';

interface Output {
  write(chunk: Buffer): Promise<void>;
  done(): Promise<void>;
  fail(): Promise<void>;
}

function streamOutput(stdout: NodeJS.WritableStream): Output {
  return {
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        stdout.write(chunk, (err) => (err ? reject(err) : resolve()));
      }),
    done: async () => undefined,
    fail: async () => undefined,
  };
}

/**
 * Writes to a temporary file beside `path` (the local sink's: a new file under a random name, never opened through a
 * link; every byte written, short writes continued) and renames it into place once complete and flushed. On any
 * failure nothing is left at `path` (an earlier file there stays as it was) and the temporary file is removed. Errors
 * name `path`, not the temporary file.
 */
async function fileOutput(path: string): Promise<Output> {
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

/**
 * `decode <file>...`: decodes local replay files (version 2 or 3, gzip or not; sniffed unless forced), in the order
 * given, into one JSON array. Streams: one file at a time, batches of events, never the whole array in memory. The
 * files are taken as one replay's: `maxReplayBytes` counts their inflated bytes together.
 */
export async function decodeFiles(
  files: readonly string[],
  opts: { out?: string; version?: FileVersion; maxEventBytes?: number; maxReplayBytes?: number; fastPath?: boolean },
  stdout: NodeJS.WritableStream,
): Promise<number> {
  const replayBudget = new ReplayBudget(opts.maxReplayBytes);
  const out = opts.out !== undefined ? await fileOutput(opts.out) : streamOutput(stdout);
  let count = 0;
  try {
    await out.write(OPEN);
    for (const file of files) {
      const source = createReadStream(file);
      const limits = {
        replayBudget,
        ...(opts.maxEventBytes !== undefined ? { maxEventBytes: opts.maxEventBytes } : {}),
        ...(opts.fastPath !== undefined ? { fastPath: opts.fastPath } : {}),
      };
      for await (const batch of decodeEventBytes(source, { version: opts.version ?? 'auto', file, ...limits })) {
        if (batch.length === 0) continue;
        const parts: Buffer[] = [];
        for (const ev of batch) {
          if (count > 0) parts.push(COMMA);
          parts.push(ev);
          count++;
        }
        await out.write(Buffer.concat(parts));
      }
    }
    await out.write(CLOSE);
    await out.done();
    return count;
  } catch (err) {
    await out.fail();
    throw err;
  }
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']\n');
