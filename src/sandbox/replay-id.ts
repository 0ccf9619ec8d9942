/**
 * Replay ids are `device_id/session_id`. The session id is what follows the LAST slash (session ids are numeric and
 * never contain one); the device id is everything before it and may itself contain slashes or any other character.
 */
export interface ReplayIdParts {
  deviceId: string;
  sessionId: string;
}

/** Null when the id is not in device_id/session_id form (no slash, or a leading or trailing slash). */
export function splitReplayId(replayId: string): ReplayIdParts | null {
  if (replayId.length === 0 || replayId.startsWith('/') || replayId.endsWith('/')) return null;
  const at = replayId.lastIndexOf('/');
  if (at <= 0) return null;
  return { deviceId: replayId.slice(0, at), sessionId: replayId.slice(at + 1) };
}

/** A value shortened for an error message (ids can be hundreds of bytes). */
export function excerpt(value: string, max = 80): string {
  return value.length <= max ? value : value.slice(0, max) + '…';
}
