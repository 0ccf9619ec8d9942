import type { Archive } from '../../sinks/archive.js';
import type { ManifestEntry, Sink } from '../../sinks/sink.js';

/** The state of each replay in an archive (or your own sink): the last manifest line written for it. */
export async function readManifestState(archive: Archive | Sink): Promise<Map<string, ManifestEntry>> {
  const state = new Map<string, ManifestEntry>();
  const entries = 'manifest' in archive ? archive.manifest.read() : archive.readManifest();
  for await (const entry of entries) {
    if (entry && typeof entry.replay_id === 'string') state.set(entry.replay_id, entry);
  }
  return state;
}

/** Whether two lists of file keys are the same set in the same order. */
export function sameFileKeys(a: readonly string[] | undefined, b: readonly string[]): boolean {
  if (a === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
