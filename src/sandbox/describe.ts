import type { Catalog } from './catalog.js';
import type { ReplayRecordJson } from './replicas.js';

/** One replay the sandbox serves, with where its expected (decoded) events are. */
export interface SandboxReplay {
  replayId: string;
  /** Name of the sample whose files and events it serves. */
  sample: string;
  origin: 'sample' | 'replica' | 'extra';
  /** The record exactly as the list endpoint returns it. */
  record: ReplayRecordJson;
  /** Absolute path of the JSON array of events that decoding all its files must give. */
  expectedPath: string;
  eventCount: number;
  /** Number of files per version (all of them, including a hidden tail). */
  fileCount: { 2: number; 3: number };
}

/** All replays, ascending by start time then replay id. */
export function describeReplays(catalog: Catalog): SandboxReplay[] {
  return catalog.sorted.map((r) => ({
    replayId: r.record.replay_id,
    sample: r.sample.name,
    origin: r.origin,
    record: { ...r.record },
    expectedPath: r.sample.expectedPath,
    eventCount: r.sample.event_count,
    fileCount: { 2: r.sample.files[2].length, 3: r.sample.files[3].length },
  }));
}
