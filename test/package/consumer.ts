/**
 * Type-checked by `npm test` (tsconfig.test.json) as a user's program would be: it imports the package by its name,
 * through the published `exports` map (dist/*.d.ts), never a source path. If a subpath or a type goes missing, the
 * type check fails.
 */
import type { eventWithTime } from '@rrweb/types';
import { Replayer } from 'rrweb';
import {
  archiveReplays,
  AuthError,
  exportReplay,
  replayEvents,
  ReplayExportError,
  type ReplayEvent,
} from 'replay-export';
import { readManifestState, resolveShard } from 'replay-export/archive';
import { SessionReplayClient, Transport } from 'replay-export/clients';
import { decodeEventBytes, DECODE_LIMITS } from 'replay-export/decoders';
import { startSandbox } from 'replay-export/sandbox';
import { createLocalSink, type Sink } from 'replay-export/sinks';

export async function playOne(id: string, root: HTMLElement): Promise<Replayer> {
  const events: ReplayEvent[] = [];
  for await (const event of replayEvents(id)) events.push(event);
  return new Replayer(events as eventWithTime[], { root });
}

export async function archiveAll(out: string): Promise<number> {
  let failed = 0;
  try {
    for await (const ev of archiveReplays({ out })) if (ev.type === 'result' && ev.outcome === 'failed') failed++;
  } catch (err) {
    if (err instanceof AuthError) return -1;
    if (err instanceof ReplayExportError && err.category === 'usage') return -2;
    throw err;
  }
  return failed;
}

export const used = [
  exportReplay,
  readManifestState,
  resolveShard,
  SessionReplayClient,
  Transport,
  decodeEventBytes,
  DECODE_LIMITS,
  startSandbox,
  createLocalSink,
];
export type UsedSink = Sink;
