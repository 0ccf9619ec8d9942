/**
 * Tombstones: the `forgotten` manifest entries `forget` writes, and how the archive recognises them. A replay
 * tombstone has the replay's own id; a user tombstone has a reserved id that no replay has (see `userTombstoneId`)
 * and `scope: 'user'` with the user's `platform_id`.
 */
import type { ManifestEntry } from '../../sinks/sink.js';
import { platformKey } from '../util/platform-key.js';

export { platformKey };

/**
 * The `replay_id` of the tombstone of a user: `forgotten-user:<platform id>/`. It ends with `/`, so it is not of the
 * `device_id/session_id` form every replay id has (a session part is never empty): no replay's entries are read as
 * the user's, and each user keeps an id of its own (a manifest kept as the last entry per id keeps every user's).
 */
export function userTombstoneId(platformId: string): string {
  return `forgotten-user:${platformId}/`;
}

/** Whether `replayId` is a user's tombstone id (`userTombstoneId`): read by every shard. */
export function isUserTombstoneId(replayId: string): boolean {
  return /^forgotten-user:-?\d+\/$/.test(replayId);
}

/** The user a `forgotten` entry of scope `user` forgets (its canonical platform id), or undefined for any other entry. */
export function forgottenUser(entry: ManifestEntry): string | undefined {
  if (entry.status !== 'forgotten' || entry.scope !== 'user') return undefined;
  const user = platformKey(entry.platform_id);
  return user !== undefined && entry.replay_id === userTombstoneId(user) ? user : undefined;
}
