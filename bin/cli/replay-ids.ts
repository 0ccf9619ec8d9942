import { ConfigError } from '../../src/index.js';
import { validateReplayId } from '../../src/clients/index.js';

/**
 * A replay id as a person types it, checked before any request: `device_id/session_id` (the library's rule), a
 * numeric session id (the platform's session ids are epoch milliseconds), and a device id of printable characters
 * without spaces or an ellipsis (`…`, the placeholder of an example copied as it is). A bad one is a usage error.
 */
export function checkReplayIdArg(id: string): string {
  validateReplayId(id);
  const slash = id.lastIndexOf('/');
  const device = id.slice(0, slash);
  const session = id.slice(slash + 1);
  const shown = JSON.stringify(id.length > 200 ? `${id.slice(0, 200)}…` : id);
  if (!/^\d+$/.test(session)) usage(`${shown} is not a replay id: the session id after the last "/" must be a number (device_id/1795308171251)`);
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/u.test(device)) usage(`${shown} is not a replay id: the device id holds a space or a control character`);
  if (device.includes('…')) usage(`${shown} is not a replay id: "…" stands for the rest of an id in examples; paste the whole id`);
  return id;
}

function usage(message: string): never {
  throw new ConfigError(message, 'invalid_replay_id');
}
