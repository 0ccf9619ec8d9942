/**
 * Opening a replay's stored object in a local archive folder, for reading. The key comes from the manifest, which is
 * input like any other: it must be exactly the key the layout gives the replay's id and format (so it is made of
 * encoded segments and cannot leave the folder), its folder must be a real folder (no symbolic link, as the local
 * sink requires), and the file itself is opened with O_NOFOLLOW and must be a regular file.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { replayKey } from '../../sinks/keys.js';
import { areRealFolders } from '../../sinks/local-folders.js';
import type { ManifestEntry } from '../../sinks/sink.js';
import { ViewError } from './errors.js';
import { isEventFormat } from './stored-events.js';

export interface StoredObject {
  body: Readable;
  format: 'json' | 'ndjson';
  gzip: boolean;
}

/** The key of a replay's events object, checked against the layout; undefined when it has none `view` can read. */
export function eventsKeyOf(entry: ManifestEntry): { key: string; format: 'json' | 'ndjson'; gzip: boolean } | undefined {
  if (entry.status !== 'ok' || typeof entry.key !== 'string' || !isEventFormat(entry.format)) return undefined;
  const gzip = entry.gzip === true;
  const expected = replayKey(entry.replay_id, { format: entry.format, gzip });
  if (entry.key !== expected) {
    throw new ViewError('VIEW_UNSAFE_KEY', `the manifest's key for this replay is not the layout's key`, { replayId: entry.replay_id, fileKey: entry.key });
  }
  return { key: expected, format: entry.format, gzip };
}

/** Opens the events object of `entry` under `root`; undefined when the replay has no readable events object. */
export async function openLocalObject(root: string, entry: ManifestEntry): Promise<StoredObject | undefined> {
  const at = eventsKeyOf(entry);
  if (at === undefined) return undefined;
  const body = await openLocalKey(root, at.key, entry.replay_id);
  return body === undefined ? undefined : { body, format: at.format, gzip: at.gzip };
}

/**
 * Opens the stored object at `key` (a layout key, checked by the caller) under `root` for reading; undefined when
 * there is none. Its folder must be a real folder and the object a regular file (opened with O_NOFOLLOW).
 */
export async function openLocalKey(root: string, key: string, replayId?: string): Promise<Readable | undefined> {
  const path = join(root, ...key.split('/'));
  if (!(await areRealFolders(root, dirname(path)))) {
    throw new ViewError('VIEW_UNSAFE_KEY', 'the folder of the stored replay is not a real folder', { replayId, fileKey: key });
  }
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new ViewError('VIEW_UNSAFE_KEY', `the stored replay cannot be opened (${code ?? 'error'})`, { replayId, fileKey: key, cause: err });
  }
  const st = await handle.stat().catch(async (err: unknown) => {
    await handle.close();
    throw err;
  });
  if (!st.isFile()) {
    await handle.close();
    throw new ViewError('VIEW_UNSAFE_KEY', 'the stored replay is not a regular file', { replayId, fileKey: key });
  }
  return handle.createReadStream();
}
