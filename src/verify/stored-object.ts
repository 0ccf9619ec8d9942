/**
 * Reading one stored replay object back, as `verify` does: its bytes are counted and hashed as they stream by, and
 * its events decoded by the decoders' own JSON array scanner (every event valid JSON, valid UTF-8) with the checks
 * recomputed over them exactly as the archive run computed them (`ReplayChecks`). A `json` object is the array
 * itself; an `ndjson` one becomes that array by turning its line ends into commas; an `html` page gives the arrays of
 * its `<script type="application/json" class="replay-events">` blocks, joined into one. Memory holds a chunk or two
 * and one event at a time, whatever the object's size.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { DecodeError, decodeEventBatches, ReplayBudget } from '../../decoders/index.js';
import { storedEventsArray } from '../../sinks/stored-array.js';
import type { ManifestChecks, OutputFormat } from '../../sinks/sink.js';
import { ReplayChecks } from '../pipeline/checks.js';
import type { Settings } from '../pipeline/settings.js';
import { VerifyError } from './errors.js';

/** The run's limits of an event and of a replay's inflated bytes (here: one object's), its fast paths, a signal. */
export type ReadLimits = Pick<Settings, 'maxEventBytes' | 'maxReplayBytes' | 'fastPath'> & {
  signal?: AbortSignal | undefined;
};

/** What reading a stored object found: always its size and hash; its events and checks when it decodes. */
export interface ObjectReading {
  bytes: number;
  sha256: string;
  decoded?: { eventCount: number; checks: ManifestChecks };
  /** Why the events could not be read (a `DecodeError`, or a `VerifyError` for the framing of its format). */
  decodeError?: DecodeError | VerifyError;
}

/**
 * Reads `body` to its end. Errors of the body itself (storage) are thrown; an object that does not decode is
 * reported in `decodeError`, after the rest of its bytes have been hashed.
 */
export async function readStoredObject(
  body: Readable,
  format: OutputFormat,
  key: string,
  limits: ReadLimits,
): Promise<ObjectReading> {
  const hash = createHash('sha256');
  let bytes = 0;
  let sourceFailure: { error: unknown } | undefined;
  const raw = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const pull = async (): Promise<IteratorResult<Buffer>> => {
    try {
      const r = await raw.next();
      if (!r.done) {
        hash.update(r.value);
        bytes += r.value.length;
      }
      return r;
    } catch (error) {
      sourceFailure = { error };
      throw error;
    }
  };
  // Not a for-await over `raw`: stopping early here (a decoding failure) must not end the body, read on below.
  async function* hashed(): AsyncGenerator<Buffer> {
    for (let r = await pull(); !r.done; r = await pull()) yield r.value;
  }
  const checks = new ReplayChecks();
  let decodeError: DecodeError | VerifyError | undefined;
  try {
    const batches = decodeEventBatches(storedEventsArray(hashed(), format, key, malformed), {
      version: 3,
      file: key,
      maxEventBytes: limits.maxEventBytes,
      replayBudget: new ReplayBudget(limits.maxReplayBytes),
      fastPath: limits.fastPath,
      signal: limits.signal,
    });
    for await (const batch of batches) checks.observeBatch(batch);
  } catch (err) {
    if (sourceFailure !== undefined || !(err instanceof DecodeError || err instanceof VerifyError)) {
      await raw.return?.();
      throw sourceFailure?.error ?? err;
    }
    decodeError = err;
  }
  try {
    // Whatever the decoding left (nothing, unless it failed) is hashed too.
    for (let r = await pull(); !r.done; r = await pull()) limits.signal?.throwIfAborted();
  } finally {
    await raw.return?.();
  }
  const reading: ObjectReading = { bytes, sha256: hash.digest('hex') };
  if (decodeError !== undefined) reading.decodeError = decodeError;
  else reading.decoded = { eventCount: checks.count, checks: checks.result() };
  return reading;
}

function malformed(message: string): VerifyError {
  return new VerifyError('VERIFY_BAD_OBJECT', message);
}
