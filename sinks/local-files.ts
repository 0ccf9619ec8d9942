/**
 * What the local sink does with the files of its keys, through the target module: a replay's temporary file made in
 * its (real) folder, temporary files of dead processes swept, a stored file found or removed — never through a link.
 */
import { describeCause, SinkError } from './errors.js';
import { TargetRefusal } from './target/refusal.js';
import type { Dir, Target } from './target/target.js';
import { TempFile, tempNamePid } from './target/temp-file.js';
import { removeEmptyFolders } from './target/tree.js';

/**
 * How many times a temporary file's folder is made again when it vanished before the file was created in it (a
 * replay of another process, failing, removed it while empty). Each retry needs another removal at that very moment.
 */
const FOLDER_ATTEMPTS = 10;

export function pidIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The folder of `key` (`''` at the top) and its last segment. */
export function splitKey(key: string): { folder: string; name: string } {
  const slash = key.lastIndexOf('/');
  return { folder: slash < 0 ? '' : key.slice(0, slash), name: key.slice(slash + 1) };
}

/** Stale temporary files of `finalName` in `dir`: left by processes of this machine that no longer run. */
async function removeStaleTemps(dir: Dir, finalName: string): Promise<void> {
  for (const name of await dir.names()) {
    const pid = tempNamePid(name, finalName);
    if (pid !== undefined && !pidIsAlive(pid)) await dir.unlink(name).catch(() => undefined);
  }
}

/**
 * Makes the key's folder (each component a real folder) and creates the temporary file of `key` in it; with
 * `cleanStale`, the key's temporary files left by dead processes go first.
 */
export async function createTemp(target: Target, key: string, cleanStale: boolean): Promise<TempFile> {
  const { folder, name } = splitKey(key);
  for (let attempt = 1; ; attempt++) {
    let dir: Dir | undefined;
    try {
      dir = (await target.folder(folder, true))!;
      if (cleanStale) await removeStaleTemps(dir, name);
      const file = await TempFile.create(dir, name);
      dir = undefined; // the file holds it now
      return file;
    } catch (err) {
      // Another process's replay, failing, removed the folder while it was empty: make it again.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === FOLDER_ATTEMPTS) throw err;
    } finally {
      await dir?.close();
    }
  }
}

/** Whether a regular file (not a link) is at `key`, in real folders below the target. */
export async function isStoredFile(target: Target, key: string): Promise<boolean> {
  try {
    return (await target.lstat(key))?.isFile() === true;
  } catch (err) {
    // A folder on the way that is a link (or a file): what is behind it is not ours.
    if (err instanceof TargetRefusal) return false;
    throw err;
  }
}

/**
 * Deletes the file at `key` (an output's or an asset's), never through a link (a link at the key goes itself), with
 * the key's temporary files left by dead processes, then its folder if that left it empty. True when one was there.
 */
export async function removeFile(target: Target, key: string): Promise<boolean> {
  try {
    const removed = await target.inParent(key, false, async (dir, name) => {
      // Temporary files of this key left by dead processes hold part of the same output.
      await removeStaleTemps(dir, name);
      const gone = await dir.unlink(name);
      if (gone) await dir.sync();
      return gone;
    });
    await removeEmptyFolders(target, splitKey(key).folder);
    return removed === true;
  } catch (err) {
    throw refusedOr(`cannot remove ${key}`, 'remove', err, { target: target.path, key });
  }
}

/**
 * The `SinkError` of a failed operation `what` on a key: a link or a special file on the way is `SINK_PATH_ESCAPE`
 * ("refusing to <verb> through it"), a file where a folder belongs and anything else `SINK_IO`.
 */
export function refusedOr(
  what: string,
  verb: string,
  err: unknown,
  context: { target: string; key?: string; replayId?: string },
): SinkError {
  if (err instanceof TargetRefusal) {
    const how = err.escapes ? `; refusing to ${verb} through it` : '';
    return new SinkError(err.code, `${what}: ${err.message}${how}`, { ...context, cause: err });
  }
  if (err instanceof SinkError) return err;
  return new SinkError('SINK_IO', `${what}: ${describeCause(err)}`, { ...context, cause: err });
}
