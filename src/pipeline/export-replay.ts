import type { Archive } from '../../sinks/archive.js';
import type { ManifestEntry, ReplayWriter } from '../../sinks/sink.js';
import type { ReplayInfo } from './types.js';
import { ReplayChecks } from './checks.js';
import { isFatal, ReplayFailedError } from './errors.js';
import { emptyEntry, exportedFields, failedEntry, okEntry } from './manifest-entries.js';
import { batchCount, batchEvents } from '../../decoders/index.js';
import { replayDecodedBatches, type ReplayFilesInfo, type ReplayIo } from './replay-stream.js';
import type { Settings } from './settings.js';
import type { AssetCapture, AssetFields } from '../assets/capture.js';
import { InternalError } from '../errors.js';
import { isPermanent } from './quarantine.js';

export type { ReplayInfo } from './types.js';

/** What exporting one replay is handed besides the settings: a replay stream's, plus the archive and a progress hook. */
export interface ExportIo extends ReplayIo {
  archive: Archive;
  /** Called after each batch handed to the sink (progress). */
  onEvents?: ((count: number) => void) | undefined;
  /** The run's asset capture (`settings.captureAssets`; required when it is on). */
  assets?: AssetCapture | undefined;
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
  const base = exportedFields(replay, settings);
  const output = settings.output;
  const checks = new ReplayChecks();
  const info: ReplayFilesInfo = { fileKeys: [], fileVersions: [], downloadedBytes: 0 };
  let writer: ReplayWriter | undefined;
  if (settings.captureAssets !== undefined && io.assets === undefined)
    throw new InternalError('asset capture is on but the run gave no capture');
  const capture = io.assets?.replay(replay.replay_id);
  try {
    // Inside the try: a sink that refuses this replay's key (a symlinked folder, a full disk) fails this replay only.
    writer = await io.archive.outputs.open(replay.replay_id, output);
    const decoded = replayDecodedBatches(replay.replay_id, settings, io, info);
    // With a policy, each event is redacted on its way to the sink; without, the decoded batches go as they are.
    const batches =
      settings.redaction === undefined
        ? decoded
        : (await import('../redaction/stream.js')).redactBatches(decoded, settings.redaction);
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
      return emptyEntry(base);
    }
    // Every asset is stored before the output appears (the html page embeds them), and both before the manifest line.
    const assets: AssetFields | undefined = await capture?.finish();
    const committed = await writer.commit(assets && { assets: { urls: assets.assets, types: assets.asset_types } });
    return okEntry(
      base,
      { keys: info.fileKeys, versions: info.fileVersions },
      {
        key: committed.key,
        event_count: committed.eventCount,
        bytes: committed.bytes,
        sha256: committed.sha256,
        checks: checks.result(),
        facts: checks.factsResult(),
        format: output.format,
        gzip: output.gzip,
        ...assets,
      },
    );
  } catch (err) {
    await writer?.abort(err).catch(() => undefined);
    if (io.signal?.aborted) throw err;
    if (isFatal(err)) throw err;
    // Its assets in flight are stored (and claimed) before its outcome is: none lands after the failed line.
    await capture?.settle();
    // Anything else (a file that cannot be decoded, a sink that refused the bytes) fails this replay alone.
    const failure = err instanceof ReplayFailedError ? err : new ReplayFailedError(replay.replay_id, undefined, err);
    return failedEntry(base, failure.toManifestError(), info.fileKeys, isPermanent(failure.category));
  }
}
