import type { ResolvedSandboxOptions } from './options.js';
import { SandboxConfigError } from './options.js';
import { splitReplayId } from './replay-id.js';
import { makeReplica, type ReplayRecordJson } from './replicas.js';
import { loadSamplesIndex, type SampleFile, type SampleReplay } from './samples-index.js';
import { parseIsoTime } from './timestamps.js';

export type FileVersion = 2 | 3;

export interface CatalogReplay {
  record: ReplayRecordJson;
  /** start_time in ms (a timestamp without zone read as UTC); the list's sort key and filter value. */
  startMs: number;
  sample: SampleReplay;
  origin: 'sample' | 'replica' | 'extra';
}

/** Orders replays by start time, then replay id (a total order: ids are unique). */
export function compareReplays(a: { startMs: number; id: string }, b: { startMs: number; id: string }): number {
  if (a.startMs !== b.startMs) return a.startMs < b.startMs ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A replay of the catalogue in that order. */
export const orderKey = (r: CatalogReplay): { startMs: number; id: string } => ({
  startMs: r.startMs,
  id: r.record.replay_id,
});
const compareCatalogReplays = (a: CatalogReplay, b: CatalogReplay): number => compareReplays(orderKey(a), orderKey(b));

/** All replays the sandbox serves, and which of their files are visible right now (held / hidden tail). */
export class Catalog {
  /** Ascending by (startMs, replay_id). */
  readonly sorted: readonly CatalogReplay[];
  readonly samples: readonly SampleReplay[];
  private readonly byId = new Map<string, CatalogReplay>();
  private readonly held: Set<string>;
  private readonly hiddenTail: Map<string, number>;
  /** `sorted`, to add to (`grow`). */
  private readonly all: CatalogReplay[];
  private grown = 0;

  constructor(opts: ResolvedSandboxOptions) {
    const samples = loadSamplesIndex(opts.samplesDir);
    this.samples = samples;
    const all: CatalogReplay[] = [];
    const add = (r: CatalogReplay): void => {
      if (this.byId.has(r.record.replay_id)) {
        throw new SandboxConfigError(`duplicate replay id ${r.record.replay_id}`);
      }
      this.byId.set(r.record.replay_id, r);
      all.push(r);
    };
    const startOf = (text: string, id: string): number => {
      const ms = parseIsoTime(text);
      if (ms === null) throw new SandboxConfigError(`replay ${id}: start_time is not an ISO 8601 timestamp`);
      return ms;
    };
    for (const s of samples) {
      const record: ReplayRecordJson = {
        replay_id: s.replay_id,
        session_id: s.session_id,
        device_id: s.device_id,
        platform_id: s.platform_id,
        start_time: s.start_time,
        end_time: s.end_time,
        retention_in_days: s.retention_in_days,
      };
      add({ record, startMs: startOf(s.start_time, s.replay_id), sample: s, origin: 'sample' });
    }
    if (opts.replicas > 0 && samples.length === 0) throw new SandboxConfigError('replicas need at least one sample');
    for (let i = 0; i < opts.replicas; i++) {
      const { record, sample } = makeReplica(i, samples);
      add({ record, startMs: startOf(record.start_time, record.replay_id), sample, origin: 'replica' });
    }
    for (const x of opts.extraReplays) {
      const parts = splitReplayId(x.replay_id);
      if (!parts) throw new SandboxConfigError(`extra replay id is not in device_id/session_id form`);
      const sample = samples.find((s) => s.name === x.sample);
      if (!sample) throw new SandboxConfigError(`extra replay: unknown sample ${x.sample}`);
      const record: ReplayRecordJson = {
        replay_id: x.replay_id,
        session_id: parts.sessionId,
        device_id: parts.deviceId,
        platform_id: x.platform_id ?? sample.platform_id,
        start_time: x.start_time ?? sample.start_time,
        end_time: x.end_time ?? sample.end_time,
        retention_in_days: x.retention_in_days ?? sample.retention_in_days,
      };
      add({ record, startMs: startOf(record.start_time, record.replay_id), sample, origin: 'extra' });
    }
    all.sort(compareCatalogReplays);
    this.sorted = all;
    this.all = all;
    this.held = new Set(opts.held);
    this.hiddenTail = new Map(Object.entries(opts.hiddenTail).filter(([, n]) => n > 0));
  }

  /** Adds `n` replays that started at `startMs` (files of the first sample): a listing that grows while it is read. */
  grow(n: number, startMs: number): void {
    const sample = this.samples[0];
    if (sample === undefined) throw new SandboxConfigError('listGrowth needs at least one sample');
    for (let i = 0; i < n; i++) {
      const k = this.grown++;
      const deviceId = `grown-${String(k).padStart(8, '0')}`;
      const sessionId = String(startMs + k);
      const start = new Date(startMs).toISOString();
      const record: ReplayRecordJson = {
        replay_id: `${deviceId}/${sessionId}`,
        session_id: sessionId,
        device_id: deviceId,
        platform_id: sample.platform_id,
        start_time: start,
        end_time: start,
        retention_in_days: sample.retention_in_days,
      };
      const r: CatalogReplay = { record, startMs, sample, origin: 'replica' };
      this.byId.set(record.replay_id, r);
      let at = this.all.length;
      while (at > 0 && compareCatalogReplays(this.all[at - 1]!, r) > 0) at--;
      this.all.splice(at, 0, r);
    }
  }

  get(replayId: string): CatalogReplay | undefined {
    return this.byId.get(replayId);
  }

  isHeld(replayId: string): boolean {
    return this.held.has(replayId);
  }

  /** The files of one version the files endpoint lists now (the hidden tail left out), in key order. */
  visibleFiles(replay: CatalogReplay, version: FileVersion): readonly SampleFile[] {
    const files = replay.sample.files[version];
    const hide = this.hiddenTail.get(replay.record.replay_id) ?? 0;
    return hide === 0 ? files : files.slice(0, Math.max(0, files.length - hide));
  }

  /** Releases one replay (held and hidden tail) or, without an id, all of them; returns the ids released. */
  release(replayId?: string): string[] {
    if (replayId === undefined) {
      const ids = [...new Set([...this.held, ...this.hiddenTail.keys()])];
      this.held.clear();
      this.hiddenTail.clear();
      return ids;
    }
    const was = this.held.delete(replayId);
    const hid = this.hiddenTail.delete(replayId);
    return was || hid ? [replayId] : [];
  }
}
