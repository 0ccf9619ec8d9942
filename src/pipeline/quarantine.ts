/**
 * Quarantine: a replay that fails with the same permanent cause (bad data: a corrupt file, an undecodable event, an
 * oversized entry or id — never the network, a 429, a 5xx or the target's storage) in `quarantineAfter` runs in a row
 * is recorded `quarantined`: an archive no longer tries it (until `retryQuarantined`) and it no longer fails a run.
 * Each failed line of a permanent cause records how many runs in a row it has failed so (`attempts`), so that the
 * manifest alone (its last line per replay, as a fold keeps it) carries the count.
 */
import type { FailedEntry, ManifestError, QuarantinedEntry } from '../../sinks/sink.js';
import type { ErrorCategory } from '../errors.js';

/** What the manifest's last line says of a replay's permanent failure. */
export interface RecordedFailure {
  /** The cause: its code and file key (`causeOf`). */
  cause: string;
  attempts: number;
  quarantined: boolean;
}

/** Whether a failure of this category would happen again with the same bytes: bad data. */
export function isPermanent(category: ErrorCategory): boolean {
  return category === 'data';
}

/** A cause as two failures are compared: the same code at the same file. */
function causeOf(error: Pick<ManifestError, 'code' | 'file_key'>): string {
  return `${error.code}\u0000${error.file_key ?? ''}`;
}

/** The failure a manifest line records, if it is a permanent one (a `failed` line with `attempts`, or `quarantined`). */
export function recordedFailure(entry: {
  status: string;
  error?: ManifestError;
  attempts?: number;
}): RecordedFailure | undefined {
  const { error, attempts } = entry;
  if (entry.status !== 'failed' && entry.status !== 'quarantined') return undefined;
  if (typeof attempts !== 'number' || !Number.isSafeInteger(attempts) || attempts < 1) return undefined;
  if (error === null || typeof error !== 'object' || typeof error.code !== 'string') return undefined;
  return { cause: causeOf(error), attempts, quarantined: entry.status === 'quarantined' };
}

/**
 * The line to record for a replay that failed now (`entry`), given its last recorded permanent failure (`before`):
 * a permanent cause counts one more run when it is the same as before, else starts at one; at `quarantineAfter`
 * runs (undefined: never) the replay is `quarantined`. A cause that may pass records no count.
 */
export function countFailure(
  entry: FailedEntry,
  before: RecordedFailure | undefined,
  quarantineAfter: number | undefined,
): FailedEntry | QuarantinedEntry {
  if (entry.attempts === undefined) return entry;
  const attempts = before !== undefined && before.cause === causeOf(entry.error) ? before.attempts + 1 : 1;
  if (quarantineAfter === undefined || attempts < quarantineAfter) return { ...entry, attempts };
  return { ...entry, status: 'quarantined', attempts };
}

/** A quarantined replay's cause for people: its code, its file, the runs it failed. */
export function describeFailure(failure: RecordedFailure): string {
  const [code, fileKey] = failure.cause.split('\u0000');
  return `${code}${fileKey ? ` (file ${fileKey})` : ''} in ${failure.attempts} runs`;
}
