/**
 * What the fold lock reads of this host's processes (fold-lock.ts): files and links under /proc, never a target path.
 * Empty strings where /proc does not tell (not Linux, no /proc mounted).
 */
import { readFile, readlink } from 'node:fs/promises';

/** The text of a /proc file (`/proc/<pid>/stat`, the boot id); empty when it cannot be read. */
export function procFile(path: `/proc/${string}`): Promise<string> {
  return readFile(path, 'latin1').catch(() => '');
}

/** Where a /proc link points (`/proc/self/ns/pid`); empty when it cannot be read. */
export function procLink(path: `/proc/${string}`): Promise<string> {
  return readlink(path).catch(() => '');
}
