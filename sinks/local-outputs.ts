/**
 * Reading a local archive folder back: a stored object by its key (never through a symbolic link), and the key of
 * every stored output, walked one open folder per level. What `verify` and `view` read through `openArchive`.
 */
import { constants } from 'node:fs';
import { open, opendir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { describeCause, SinkError } from './errors.js';
import { foldersToRemoveIn, NotAFolderError } from './local-folders.js';

/**
 * Opens the stored object at `key` (checked by the caller: it stays inside `root`) for reading; undefined when there is
 * none. Its folder must be a real folder and the object a regular file (opened with O_NOFOLLOW): anything else is
 * refused with `SINK_PATH_ESCAPE`.
 */
export async function readLocalObject(root: string, key: string): Promise<Readable | undefined> {
  const path = join(root, ...key.split('/'));
  const refuse = (what: string, cause?: unknown): SinkError =>
    new SinkError('SINK_PATH_ESCAPE', `cannot read ${key}: ${what}`, {
      target: root,
      key,
      cause,
    });
  try {
    if (!(await foldersToRemoveIn(root, dirname(path)))) return undefined;
  } catch (err) {
    if (err instanceof NotAFolderError) throw refuse(`${err.message}; refusing to read through it`, err);
    throw new SinkError('SINK_IO', `cannot read ${key}: ${describeCause(err)}`, { target: root, key, cause: err });
  }
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK') throw refuse('it is a symbolic link', err);
    throw new SinkError('SINK_IO', `cannot read ${key}: ${describeCause(err)}`, { target: root, key, cause: err });
  }
  const st = await handle.stat().catch(async (err: unknown) => {
    await handle.close();
    throw new SinkError('SINK_IO', `cannot read ${key}: ${describeCause(err)}`, { target: root, key, cause: err });
  });
  if (!st.isFile()) {
    await handle.close();
    throw refuse('it is not a regular file');
  }
  return handle.createReadStream();
}

/** Names the local sink keeps for itself at any depth (`_…`, and `.…` for temporary files): never outputs. */
function isSinkName(name: string): boolean {
  return name.startsWith('_') || name.startsWith('.');
}

/**
 * Every file (or link, or other non-folder) below the folders of a local archive, as `/`-separated keys. Files at the
 * top level are the sink's (its manifest and what it keeps beside it), never outputs, whose keys always have a folder
 * (`<device>/<session>.<ext>`); folders are not followed through links. A missing root lists nothing.
 */
export async function* localOutputKeys(root: string): AsyncGenerator<string> {
  yield* walk(root, '');
}

/**
 * Every file (or link, or other non-folder) under a local archive, at any depth, the sink's own (`_…`, `.…`) included,
 * as `/`-separated keys: what `verify` checks for files no entry names. Folders are not followed through links.
 */
export async function* localStoredObjects(root: string): AsyncGenerator<string> {
  yield* walk(root, '', true);
}

async function* walk(dir: string, prefix: string, all = false): AsyncGenerator<string> {
  let folder;
  try {
    folder = await opendir(dir);
  } catch (err) {
    if (prefix === '' && (err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new SinkError('SINK_IO', `cannot list ${prefix === '' ? 'the archive' : prefix}: ${describeCause(err)}`, {
      target: dir,
      cause: err,
    });
  }
  for await (const entry of folder) {
    if (!all && isSinkName(entry.name)) continue;
    if (entry.isDirectory()) yield* walk(join(dir, entry.name), `${prefix}${entry.name}/`, all);
    else if (all || prefix !== '') yield prefix + entry.name;
  }
}
