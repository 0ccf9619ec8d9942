import type { Archive } from '../../sinks/archive.js';
import type { ManifestEntry, ReplayWriter } from '../../sinks/sink.js';
import { parseTimestamp } from '../replay/timestamps.js';
import { ReplayChecks } from './checks.js';
import { isFatal, ReplayFailedError } from './errors.js';
import { expiresAtIso } from './expiry.js';
import { batchCount, batchEvents } from '../../decoders/index.js';
import { replayDecodedBatches, type ReplayFilesInfo, type ReplayIo } from './replay-stream.js';
import type { Settings } from './settings.js';
import { formatShard } from './shard.js';
import { redactBatches } from '../redaction/stream.js';
import { AssetCapture, type AssetFields } from '../assets/capture.js';

/** What the pipeline knows about a replay before exporting it (a listing record, or just an id). */
export interface ReplayInfo {
  replay_id: string;
  start_time?: string;
  end_time?: string;
  retention_in_days?: number;
  /** The user's platform id, as the listing gave it (NaN or absent when unknown); recorded in the manifest. */
  platform_id?: number;
  startMs?: number | null;
  /** The listing, asked for this id, did not return it: the API does not know the replay (`not_found`). */
  notFound?: boolean;
}

/** What exporting one replay is handed besides the settings: a replay stream's, plus the archive and a progress hook. */
export interface ExportIo extends ReplayIo {
  archive: Archive;
  /** Called after each batch handed to the sink (progress). */
  onEvents?: ((count: number) => void) | undefined;
  /** The run's asset capture (`settings.captureAssets`); absent with capture on: one for this replay alone. */
  assets?: AssetCapture | undefined;
}

function baseEntry(replay: ReplayInfo, settings: Settings): Omit<ManifestEntry, 'status' | 'recorded_at'> {
  const entry: Omit<ManifestEntry, 'status' | 'recorded_at'> = { replay_id: replay.replay_id };
  if (replay.start_time !== undefined) entry.start_time = replay.start_time;
  if (replay.end_time !== undefined) entry.end_time = replay.end_time;
  if (Number.isSafeInteger(replay.platform_id)) entry.platform_id = replay.platform_id!;
  const startMs = replay.startMs !== undefined ? replay.startMs : replay.start_time !== undefined ? parseTimestamp(replay.start_time) : null;
  const expires = expiresAtIso(startMs, replay.retention_in_days);
  if (expires !== undefined) entry.expires_at = expires;
  if (settings.runId !== undefined) entry.run_id = settings.runId;
  if (settings.shard !== undefined) entry.shard = formatShard(settings.shard);
  if (settings.redaction !== undefined) entry.redaction = settings.redaction.digest;
  return entry;
}


/**
 * Exports one replay into a sink and returns its manifest entry (not yet appended: the caller records it once the
 * outcome is final). The output appears at its key only when complete (the sink commits atomically); any failure
 * aborts the writer, so nothing partial is ever left at the final key.
 *   ok      — every file decoded and written; checks computed over the events as they streamed by;
 *   empty   — the files listing has no files yet (tried again by the next run); nothing is written;
 *   failed  — a permanent failure; `error` names the file key and the reason.
 * Cancellation (the signal) and authentication failures are thrown, not recorded.
 */
export async function exportReplayToSink(replay: ReplayInfo, settings: Settings, io: ExportIo): Promise<ManifestEntry> {
  const base = baseEntry(replay, settings);
  const output = settings.output;
  const checks = new ReplayChecks();
  const info: ReplayFilesInfo = { fileKeys: [], fileVersions: [], downloadedBytes: 0 };
  let writer: ReplayWriter | undefined;
  const ownCapture = settings.captureAssets !== undefined && io.assets === undefined ? new AssetCapture(settings.captureAssets, io.archive.assets, io.signal) : undefined;
  const capture = (io.assets ?? ownCapture)?.replay();
  try {
    // Inside the try: a sink that refuses this replay's key (a symlinked folder, a full disk) fails this replay only.
    writer = await io.archive.outputs.open(replay.replay_id, output);
    const decoded = replayDecodedBatches(replay.replay_id, settings, io, info);
    // With a policy, each event is redacted on its way to the sink; without, the decoded batches go as they are.
    const batches = settings.redaction === undefined ? decoded : redactBatches(decoded, settings.redaction);
    for await (const batch of batches) {
      checks.observeBatch(batch);
      capture?.observeBatch(batch);
      // Runs go to the writer as they are when it takes them (one slice per run); one Buffer per event otherwise.
      if (batch.runs !== undefined && writer.writeRuns !== undefined) await writer.writeRuns(batch.runs);
      else await writer.write(batchEvents(batch));
      io.onEvents?.(batchCount(batch));
    }
    if (info.fileKeys.length === 0) {
      await writer.abort('no files');
      return { ...base, status: 'empty', reason: 'no files yet', file_keys: [], recorded_at: new Date().toISOString() };
    }
    // Every asset is stored before the output appears (the html page embeds them), and both before the manifest line.
    const assets: AssetFields | undefined = await capture?.finish();
    const committed = await writer.commit(assets && { assets: { urls: assets.assets, types: assets.asset_types } });
    return {
      ...base,
      status: 'ok',
      key: committed.key,
      event_count: committed.eventCount,
      bytes: committed.bytes,
      sha256: committed.sha256,
      file_versions: info.fileVersions,
      file_keys: info.fileKeys,
      checks: checks.result(),
      format: output.format,
      gzip: output.gzip,
      ...assets,
      recorded_at: new Date().toISOString(),
    };
  } catch (err) {
    await writer?.abort(err).catch(() => undefined);
    if (io.signal?.aborted) throw err;
    if (isFatal(err)) throw err;
    // Anything else (a file that cannot be decoded, a sink that refused the bytes) fails this replay alone.
    const failure = err instanceof ReplayFailedError ? err : new ReplayFailedError(replay.replay_id, undefined, err);
    return {
      ...base,
      status: 'failed',
      error: failure.toManifestError(),
      file_keys: info.fileKeys,
      recorded_at: new Date().toISOString(),
    };
  } finally {
    await ownCapture?.close();
  }
}
