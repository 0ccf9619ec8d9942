import { createReadStream } from 'node:fs';
import { decodeEventBytes, ReplayBudget, type FileVersion } from '../../decoders/index.js';
import { fileOutput, streamOutput } from './file-output.js';
import type { CliOutput } from './context.js';

/**
 * `decode <file>...`: decodes local replay files (version 2 or 3, gzip or not; sniffed unless forced), in the order
 * given, into one JSON array. Streams: one file at a time, batches of events, never the whole array in memory. The
 * files are taken as one replay's: `maxReplayBytes` counts their inflated bytes together.
 */
export async function decodeFiles(
  files: readonly string[],
  opts: { out?: string; version?: FileVersion; maxEventBytes?: number; maxReplayBytes?: number; fastPath?: boolean },
  stdout: CliOutput,
): Promise<number> {
  const replayBudget = new ReplayBudget(opts.maxReplayBytes);
  const out = opts.out !== undefined ? await fileOutput(opts.out) : streamOutput(stdout, 'json');
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
