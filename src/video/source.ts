/**
 * Where the events of a video come from: an exported file (`.json`/`.ndjson`, gzipped or not), a replay in an
 * archive (local folder or `s3://`, through its manifest), or the platform (through a run: `replayEventBytes`).
 * Each is read as a stream of events (one Buffer of JSON each), never whole.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { replayEventBytes, type EntryOptions } from '../pipeline/library.js';
import { openArchiveSource } from '../view/archive-source.js';
import { storedEvents } from '../view/stored-events.js';
import type { S3SinkOptions } from '../../sinks/s3.js';
import { VideoError } from './errors.js';

/** The largest single event read from a file or an archive (a canvas frame or a full snapshot can be large). */
const MAX_EVENT_BYTES = 256 << 20;

export type VideoSource =
  /** An exported events file: `.json`, `.ndjson`, either with `.gz`. */
  | { file: string }
  /** A replay of an archive (a folder or `s3://bucket/prefix`), by id. */
  | { archive: string; replayId: string; s3?: S3SinkOptions | undefined }
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

async function* archiveEvents(archive: string, replayId: string, s3: S3SinkOptions | undefined): AsyncGenerator<Buffer> {
  const source = await openArchiveSource(archive, s3);
  try {
    const row = source.index.get(replayId);
    if (!row) throw new VideoError('VIDEO_BAD_OPTION', `replay ${replayId} is not in the archive ${source.label}`, { replayId });
    const object = row.stored === undefined ? undefined : await source.open(row.stored);
    if (!object) throw new VideoError('VIDEO_BAD_OPTION', `the archive ${source.label} holds no stored output for replay ${replayId}`, { replayId });
    yield* compact(storedEvents(object.body, object.format, object.gzip, MAX_EVENT_BYTES), `replay ${replayId} of ${source.label}`);
  } finally {
    await source.close();
  }
}

/** The events of `source`, streamed. */
export function eventsOf(source: VideoSource): AsyncIterable<Buffer | readonly Buffer[]> {
  if ('events' in source) return source.events;
  if ('file' in source) return fileEvents(source.file);
  if ('archive' in source) return archiveEvents(source.archive, source.replayId, source.s3);
  return replayEventBytes(source.replayId, source.platform ?? {});
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
