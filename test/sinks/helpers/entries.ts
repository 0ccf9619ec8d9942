import type { ManifestEntry } from '../../../sinks/sink.js';

/**
 * A manifest line as a test reads it: any field, without narrowing on `status` first (a manifest is input, written by
 * older versions or by hand: the readers under test check what they use).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LooseEntry = ManifestEntry & Record<string, any>;

/** A hand-written manifest line (what an older version, or a person, may have written): only the fields given. */
export function line(
  fields: { replay_id: string; status: ManifestEntry['status']; recorded_at: string } & Record<string, unknown>,
): ManifestEntry {
  return fields as unknown as ManifestEntry;
}
