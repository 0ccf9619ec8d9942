import { createReadStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { decodeEventBytes, ReplayBudget, type FileVersion } from '../../decoders/index.js';

interface Output {
  write(chunk: Buffer | string): Promise<void>;
  done(): Promise<void>;
  fail(): Promise<void>;
}

function stdoutOutput(): Output {
  return {
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        process.stdout.write(chunk, (err) => (err ? reject(err) : resolve()));
      }),
    done: async () => undefined,
    fail: async () => undefined,
  };
}

/** Writes next to the final file and renames it into place when complete: no half-written output on failure. */
async function fileOutput(path: string): Promise<Output> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const handle = await open(tmp, 'w');
  return {
    write: async (chunk) => {
      await (typeof chunk === "string" ? handle.write(chunk) : handle.write(chunk));
    },
    done: async () => {
      await handle.sync();
      await handle.close();
      await rename(tmp, path);
    },
    fail: async () => {
      await handle.close().catch(() => undefined);
      await rm(tmp, { force: true });
    },
  };
}

/**
 * `decode <file>...`: decodes local replay files (version 2 or 3, gzip or not; sniffed unless forced), in the order
 * given, into one JSON array. Streams: one file at a time, batches of events, never the whole array in memory. The
 * files are taken as one replay's: `maxReplayBytes` counts their inflated bytes together.
 */
export async function decodeFiles(
  files: readonly string[],
  opts: { out?: string; version?: FileVersion; maxEventBytes?: number; maxReplayBytes?: number },
): Promise<number> {
  const replayBudget = new ReplayBudget(opts.maxReplayBytes);
  const out = opts.out !== undefined ? await fileOutput(opts.out) : stdoutOutput();
  let count = 0;
  try {
    await out.write('[');
    for (const file of files) {
      const source = createReadStream(file);
      const limits = { replayBudget, ...(opts.maxEventBytes !== undefined ? { maxEventBytes: opts.maxEventBytes } : {}) };
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
    await out.write(']\n');
    await out.done();
    return count;
  } catch (err) {
    await out.fail();
    throw err;
  }
}

const COMMA = Buffer.from(',');
