/**
 * Reading a local archive folder back through the target module: a stored object by its key (never through a symbolic
 * link, never a FIFO or device), and the key of every stored file, walked one folder descriptor per level. What
 * `verify` and `view` read through `openArchive`.
 */
import type { Readable } from 'node:stream';
import { describeCause, SinkError } from './errors.js';
import { TargetRefusal } from './target/refusal.js';
import type { Target } from './target/target.js';
import { filesBelow } from './target/tree.js';

/**
 * Opens the stored object at `key` for reading; undefined when there is none. Its folders must be real folders and the
 * object a regular file: anything else is refused with `SINK_PATH_ESCAPE` (a link, a FIFO, a device) or `SINK_IO`.
 */
export async function readLocalObject(target: Target, key: string): Promise<Readable | undefined> {
  try {
    const handle = await target.openFile(key, 'read');
    return handle?.createReadStream();
  } catch (err) {
    if (err instanceof TargetRefusal) {
      const what = err.at === key ? `it ${err.what}` : `${err.message}; refusing to read through it`;
      throw new SinkError(err.code, `cannot read ${key}: ${what}`, {
        target: target.path,
        key,
        cause: err,
      });
    }
    if (err instanceof SinkError) throw err;
    throw new SinkError('SINK_IO', `cannot read ${key}: ${describeCause(err)}`, {
      target: target.path,
      key,
      cause: err,
    });
  }
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
export async function* localOutputKeys(target: Target): AsyncGenerator<string> {
  for await (const key of listed(target, (name) => isSinkName(name))) if (key.includes('/')) yield key;
}

/**
 * Every file (or link, or other non-folder) under a local archive, at any depth, the sink's own (`_…`, `.…`) included,
 * as `/`-separated keys: what `verify` checks for files no entry names. Folders are not followed through links.
 */
export async function* localStoredObjects(target: Target): AsyncGenerator<string> {
  yield* listed(target, () => false);
}

async function* listed(target: Target, skip: (name: string) => boolean): AsyncGenerator<string> {
  try {
    const root = await target.root(false);
    if (root === undefined) return;
    yield* filesBelow(root, skip);
  } catch (err) {
    if (err instanceof SinkError) throw err;
    throw new SinkError('SINK_IO', `cannot list the archive: ${describeCause(err)}`, {
      target: target.path,
      cause: err,
    });
  }
}
