import type { Archive } from '../../sinks/archive.js';
import type { ManifestEntry, Sink } from '../../sinks/sink.js';
import { fileKeysDigest } from './manifest-entries.js';

/** The state of each replay in an archive (or your own sink): the last manifest line written for it. */
export async function readManifestState(archive: Archive | Sink): Promise<Map<string, ManifestEntry>> {
  const state = new Map<string, ManifestEntry>();
  const entries = 'manifest' in archive ? archive.manifest.read() : archive.readManifest();
  for await (const entry of entries) {
    if (entry && typeof entry.replay_id === 'string') state.set(entry.replay_id, entry);
  }
  return state;
}

/** A replay's file keys as its line records them: the keys, or their digest (`file_keys_sha256`). */
export type RecordedFileKeys = readonly string[] | string;

/** Whether the recorded file keys (or their digest) are `b`: the same keys in the same order. */
export function sameFileKeys(a: RecordedFileKeys | undefined, b: readonly string[]): boolean {
  if (typeof a === 'string') return a === fileKeysDigest(b);
  if (a === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
