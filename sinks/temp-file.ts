/**
 * A file written under a temporary name beside its final name and renamed into place once complete, so that the final
 * name only ever holds a complete file: the local sink's outputs and `decode --out`.
 *
 * The temporary name is `.<final name>.<pid>.<8 random hex digits>.tmp`, created with O_CREAT | O_EXCL | O_NOFOLLOW:
 * nothing planted at a name (a symbolic link above all) is ever opened or written through, and the random part makes
 * the name unpredictable. Writes go through `WriteAhead` (every byte written, short writes continued, the first error
 * kept). `install` does not wait for the writes nor flush the file's data: call `drain` and `sync` first.
 */

import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { WriteAhead } from './write-ahead.js';

/** O_NOFOLLOW where the platform has one (Windows has none: 0 there). */
export const O_NOFOLLOW: number = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY: number = constants.O_DIRECTORY ?? 0;

export const TEMP_SUFFIX = '.tmp';

/** `.<final name>.<pid>.<random>.tmp`, next to the final file. */
export function tempName(finalName: string): string {
  return `.${finalName}.${process.pid}.${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`;
}

/** The process id in a temporary name made by `tempName(finalName)`; `undefined` for any other name. */
export function tempNamePid(name: string, finalName: string): number | undefined {
  const prefix = `.${finalName}.`;
  if (!name.startsWith(prefix) || !name.endsWith(TEMP_SUFFIX)) return undefined;
  const middle = name.slice(prefix.length, -TEMP_SUFFIX.length).split('.');
  const pid = Number(middle[0]);
  return middle.length === 2 && Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Whether an `open` with O_NOFOLLOW failed because the last component of the path is a symbolic link: ELOOP on Linux
 * and macOS, EMLINK on FreeBSD, EFTYPE on NetBSD.
 */
export function isSymlinkRefusal(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ELOOP' || code === 'EMLINK' || code === 'EFTYPE';
}

/** Flushes a folder's entries (a rename, a create) to disk. Not possible on Windows; skipped there. */
export async function fsyncDir(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(dir, constants.O_RDONLY | O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export class TempFile {
  /** Ordered writes to the file (see `WriteAhead`). */
  readonly out: WriteAhead;
  /** Told the bytes written from the start of the file as writes complete (`WriteAhead`'s `onWritten`). */
  onWritten: ((bytes: number) => void) | undefined;
  private closed = false;
  private installedAt = false;

  private constructor(
    readonly folder: string,
    readonly path: string,
    readonly finalPath: string,
    readonly handle: FileHandle,
  ) {
    this.out = new WriteAhead(handle, (bytes) => this.onWritten?.(bytes));
  }

  /** Creates a new temporary file for `finalName` in `folder` (never an existing file, never through a link). */
  static async create(folder: string, finalName: string): Promise<TempFile> {
    const path = join(folder, tempName(finalName));
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;
    const handle = await open(path, flags, 0o644);
    return new TempFile(folder, path, join(folder, finalName), handle);
  }

  /** Whether the file has been renamed to its final name. */
  get installed(): boolean {
    return this.installedAt;
  }

  /** Waits for every write; throws the first failure. */
  drain(): Promise<void> {
    return this.out.drain();
  }

  /** Flushes the file's data and size to the device. */
  sync(): Promise<void> {
    return this.handle.sync();
  }

  /** Closes the file, renames it to its final name (replacing what was there, a link itself rather than its target), flushes the folder. */
  async install(): Promise<void> {
    await this.close();
    await rename(this.path, this.finalPath);
    this.installedAt = true;
    await fsyncDir(this.folder);
  }

  /** Drops the file: waits for the writes in flight, closes it and removes it. Never throws; a no-op once installed. */
  async discard(): Promise<void> {
    if (this.installedAt) return;
    await this.out.settle();
    await this.close().catch(() => undefined);
    await unlink(this.path).catch(() => undefined);
  }

  private async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }
}
