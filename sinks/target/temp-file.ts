/**
 * A file written under a temporary name beside its final name and renamed into place once complete, so that the final
 * name only ever holds a complete file: the local sink's outputs and assets, and `decode --out`.
 *
 * The temporary name is `.<final name>.<pid>.<8 random hex digits>.tmp`, created in a folder opened through the target
 * module (target.ts) with O_CREAT | O_EXCL | O_NOFOLLOW: nothing planted at a name (a symbolic link above all) is ever
 * opened or written through, and the random part makes the name unpredictable. Writes go through `WriteAhead` (every
 * byte written, short writes continued, the first error kept). `install` does not wait for the writes nor flush the
 * file's data: call `drain` and `sync` first.
 */

import { randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { SinkError } from '../errors.js';
import { WriteAhead } from '../write-ahead.js';
import { type Dir, type Place, Target } from './target.js';

const TEMP_SUFFIX = '.tmp';

/** `.<final name>.<pid>.<random>.tmp`, next to the final file. */
function tempName(finalName: string): string {
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

/** Where another reader of a file (the hashing worker) opens it again, and the device and inode it must find there. */
export type ReadBack = Place;

export class TempFile {
  /** Ordered writes to the file (see `WriteAhead`). */
  readonly out: WriteAhead;
  /** Told the bytes written from the start of the file as writes complete (`WriteAhead`'s `onWritten`). */
  onWritten: ((bytes: number) => void) | undefined;
  private closed = false;
  private ended = false;
  private installedAt = false;

  private constructor(
    private readonly dir: Dir,
    /** The temporary name, in `dir`. */
    readonly name: string,
    readonly finalName: string,
    readonly handle: FileHandle,
    private readonly node: { dev: number; ino: number },
    private readonly ownTarget: Target | undefined,
  ) {
    this.out = new WriteAhead(handle, (bytes) => this.onWritten?.(bytes));
  }

  /**
   * Creates a new temporary file for `finalName` in `folder` (never an existing file, never through a link). The
   * file holds `folder` (a `Dir`: the file closes it when it ends; a path: the folder must exist) until it ends.
   */
  static async create(folder: Dir | string, finalName: string): Promise<TempFile> {
    const target = typeof folder === 'string' ? new Target(folder) : undefined;
    try {
      const dir = target === undefined ? (folder as Dir) : await target.root(false);
      if (dir === undefined)
        throw new SinkError('SINK_IO', `no folder ${target!.path} to write ${finalName} in`, { target: target!.path });
      const name = tempName(finalName);
      const { handle, stats } = (await dir.openFile(name, 'create'))!;
      return new TempFile(dir, name, finalName, handle, { dev: stats.dev, ino: stats.ino }, target);
    } catch (err) {
      await target?.close();
      throw err;
    }
  }

  /** The key of the final name, relative to the target. */
  get key(): string {
    return this.dir.keyOf(this.finalName);
  }

  /** How another reader opens this very file (the worker that hashes it: by descriptor through /proc, else by path). */
  readBack(): ReadBack {
    const path = this.dir.target.resolution === 'proc' ? `/proc/self/fd/${this.handle.fd}` : this.dir.pathOf(this.name);
    return { path, ...this.node };
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
    try {
      await this.close();
      await this.dir.rename(this.name, this.dir, this.finalName);
      this.installedAt = true;
      await this.dir.sync();
    } finally {
      if (this.installedAt) await this.end();
    }
  }

  /** Drops the file: waits for the writes in flight, closes it and removes it. Never throws; a no-op once installed. */
  async discard(): Promise<void> {
    if (this.installedAt || this.ended) return;
    await this.out.settle();
    await this.close().catch(() => undefined);
    await this.dir.unlink(this.name).catch(() => undefined);
    await this.end().catch(() => undefined);
  }

  private async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }

  /** Lets go of the folder (and of the target opened for a path). */
  private async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.dir.close();
    await this.ownTarget?.close();
  }
}
