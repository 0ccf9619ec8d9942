import type { FileVersion } from './catalog.js';
import { STORAGE_PREFIX, uriEncode } from './presign.js';

/**
 * Object keys of replay files: `replays/device-<device_id>/session-<session_id>/v<version>/<file name>`.
 * In the URL path the device and session parts are each ONE encoded segment (a `/` inside a device id becomes %2F),
 * and every segment starts with a fixed prefix, so no id can make a `.` or `..` path segment.
 * The key (the URL path decoded, without the /__storage/ prefix) is what clients log; it never holds the signature.
 */
export function storageObject(
  deviceId: string,
  sessionId: string,
  version: FileVersion,
  name: string,
): {
  key: string;
  path: string;
} {
  const parts = ['replays', `device-${deviceId}`, `session-${sessionId}`, `v${version}`, name];
  return { key: parts.join('/'), path: STORAGE_PREFIX + parts.map(uriEncode).join('/') };
}

/** The replay id, version and file name of a key, or null when the key is not of that shape. */
export function parseStorageKey(key: string): { replayId: string; version: FileVersion; name: string } | null {
  const nameAt = key.lastIndexOf('/');
  if (nameAt < 0) return null;
  const name = key.slice(nameAt + 1);
  const versionAt = key.lastIndexOf('/', nameAt - 1);
  if (versionAt < 0) return null;
  const v = key.slice(versionAt + 1, nameAt);
  if (v !== 'v2' && v !== 'v3') return null;
  const sessionAt = key.lastIndexOf('/', versionAt - 1);
  if (sessionAt < 0) return null;
  const session = key.slice(sessionAt + 1, versionAt);
  const head = key.slice(0, sessionAt);
  if (!session.startsWith('session-') || !head.startsWith('replays/device-')) return null;
  const deviceId = head.slice('replays/device-'.length);
  return { replayId: `${deviceId}/${session.slice('session-'.length)}`, version: v === 'v2' ? 2 : 3, name };
}
