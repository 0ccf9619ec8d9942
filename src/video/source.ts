/**
 * Where the events of a video come from: an exported file (`.json`/`.ndjson`, gzipped or not), a replay in an
 * archive (local folder or `s3://`, through its manifest), or the platform (through a run: `replayEventBytes`).
 * Each is read as a stream of events (one Buffer of JSON each), never whole.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { replayEventBytes, type EntryOptions } from '../pipeline/library.js';
import { openArchiveSource } from '../view/archive-source.js';
import { storedEvents } from '../view/stored-events.js';
import type { ReplayAssets } from '../../sinks/assets.js';
import { VideoError } from './errors.js';

/** The largest single event read from a file or an archive (a canvas frame or a full snapshot can be large). */
const MAX_EVENT_BYTES = 256 << 20;

export type VideoSource =
  /** An exported events file: `.json`, `.ndjson`, either with `.gz`. */
  | { file: string }
  /**
   * A replay of an archive, by id: the archive of the run of `archive` (its `out`, a folder or `s3://bucket/prefix`
   * with `sinkOptions.s3`, or an open `run`'s).
   */
  | { replayId: string; archive: EntryOptions }
  /** A replay on the platform, by id, through a run (`run`, or the run options given). */
  | { replayId: string; platform?: EntryOptions | undefined }
  /** Events of your own (compact JSON, one Buffer each, or batches of them). */
  | { events: AsyncIterable<Buffer | readonly Buffer[]> };

/** How a file's events are stored, by its name. */
export function fileFormat(path: string): { format: 'json' | 'ndjson'; gzip: boolean } {
  const m = /\.(json|ndjson|jsonl)(\.gz)?$/i.exec(path);
  if (!m) throw new VideoError('VIDEO_BAD_OPTION', `not an events file (.json, .ndjson, optionally .gz): ${path}`);
  return { format: m[1]!.toLowerCase() === 'json' ? 'json' : 'ndjson', gzip: m[2] !== undefined };
}

/**
 * Each event as compact JSON (a file may be pretty-printed; the player page takes one line per event), checked to be
 * JSON on the way.
 */
async function* compact(events: AsyncIterable<Buffer>, where: string): AsyncGenerator<Buffer> {
  let index = 0;
  for await (const event of events) {
    let value: unknown;
    try {
      value = JSON.parse(event.toString('utf8'));
    } catch (err) {
      throw new VideoError('VIDEO_BAD_OPTION', `event ${index} of ${where} is not JSON`, { index, cause: err });
    }
    index++;
    yield Buffer.from(JSON.stringify(value), 'utf8');
  }
}

async function* fileEvents(path: string): AsyncGenerator<Buffer> {
  const { format, gzip } = fileFormat(path);
  yield* compact(storedEvents(createReadStream(path), format, gzip, MAX_EVENT_BYTES), path);
}

/** A replay's captured assets (`--capture-assets`): its map, and each asset's bytes by digest (undefined: not stored). */
export interface CapturedAssets {
  map: ReplayAssets;
  read(digest: string): Promise<Readable | undefined>;
}

/** A source opened: its events (streamed), its captured assets when it has any, and what to close once rendered. */
export interface OpenedSource {
  events: AsyncIterable<Buffer | readonly Buffer[]>;
  assets?: CapturedAssets | undefined;
  close(): Promise<void>;
}

/** A replay of an archive: its stored output's events and, when the entry has them, its captured assets. */
async function openArchiveEntry(archive: EntryOptions, replayId: string): Promise<OpenedSource> {
  const source = await openArchiveSource(archive, false);
  try {
    const row = await source.replay(replayId);
    if (!row)
      throw new VideoError('VIDEO_BAD_OPTION', `replay ${replayId} is not in the archive ${source.label}`, {
        replayId,
      });
    const object = row.stored === undefined ? undefined : await source.open(row.stored);
    if (!object)
      throw new VideoError(
        'VIDEO_BAD_OPTION',
        `the archive ${source.label} holds no stored output for replay ${replayId}`,
        { replayId },
      );
    const map = row.hasAssets ? await source.assetsOf(replayId) : undefined;
    return {
      events: compact(
        storedEvents(object.body, object.format, object.gzip, MAX_EVENT_BYTES),
        `replay ${replayId} of ${source.label}`,
      ),
      assets: map && { map, read: (digest) => source.readAsset(digest) },
      close: () => source.close(),
    };
  } catch (err) {
    await source.close();
    throw err;
  }
}

/** Opens `source`: its events are read as they are consumed; close it once done. */
export async function openVideoSource(source: VideoSource): Promise<OpenedSource> {
  if ('archive' in source) return openArchiveEntry(source.archive, source.replayId);
  const events =
    'events' in source
      ? source.events
      : 'file' in source
        ? fileEvents(source.file)
        : replayEventBytes(source.replayId, source.platform ?? {});
  return { events, close: async () => undefined };
}

/** A title for the source (the replay id, or the file's path). */
export function titleOf(source: VideoSource): string {
  if ('replayId' in source) return source.replayId;
  if ('file' in source) return source.file;
  return 'replay';
}

/** Whether `path` names an existing file (the CLI reads a positional argument that does as a file). */
export async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}
