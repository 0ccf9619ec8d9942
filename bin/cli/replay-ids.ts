import { validateReplayId } from '../../src/clients/index.js';

/**
 * A replay id as given on the command line, checked by the spec's rules only (the library's `validateReplayId`, a
 * ValidationError naming replay_id, a usage error): `device_id/session_id`, a "/" between two non-empty parts, no
 * leading or trailing slash, Unicode text. Any other character (spaces, punctuation, control characters) is allowed:
 * the platform may list such ids, and every id it lists can be exported. Control characters are escaped wherever an
 * id is printed, never a reason to refuse it.
 */
export function checkReplayIdArg(id: string): string {
  return validateReplayId(id);
}
