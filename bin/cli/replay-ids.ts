import { existsSync, statSync } from 'node:fs';
import { ConfigError } from '../../src/errors.js';
import { validateReplayId } from '../../src/clients/index.js';

/**
 * Whether a command-line argument reads as a path rather than a replay id: it starts like one (`./`, `../`, `/`, `~`)
 * or ends with an events file's extension (`.json`, `.ndjson`, `.html`, `.gz`). A replay id's session part is a
 * number, so no id ends like a file.
 */
export function looksLikeFile(arg: string): boolean {
  return /^(\.{1,2}[/\\]|[/\\]|~)/.test(arg) || /\.(json|ndjson|html|gz)$/i.test(arg);
}

/** A usage error about `arg`, which reads as a file: there is none, or it is not a regular file. */
export function fileArgError(arg: string, takes: string): ConfigError {
  const stat = existsSync(arg) ? statSync(arg) : undefined;
  const what = stat === undefined ? 'no such file' : stat.isFile() ? 'a file, not a replay id' : 'not a file';
  return new ConfigError(`${JSON.stringify(arg)}: ${what} (${takes})`, 'FILE_NOT_FOUND');
}

/**
 * A replay id as given on the command line, checked by the spec's rules only (the library's `validateReplayId`, a
 * ValidationError naming replay_id, a usage error): `device_id/session_id`, a "/" between two non-empty parts, no
 * leading or trailing slash, Unicode text. Any other character (spaces, punctuation, control characters) is allowed:
 * the platform may list such ids, and every id it lists can be exported. Control characters are escaped wherever an
 * id is printed, never a reason to refuse it. An argument that reads as a file path is refused as one (`./typo.json`
 * would pass the spec's rules and reach the API).
 */
export function checkReplayIdArg(id: string): string {
  if (looksLikeFile(id)) throw fileArgError(id, 'replay ids are device_id/session_id');
  return validateReplayId(id);
}
