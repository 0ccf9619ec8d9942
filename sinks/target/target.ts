/**
 * The one way into a local target: every read, write, listing and removal of a local archive (and of `decode --out`'s
 * file) goes through a `Target` and the folders (`Dir`) it opens. Nothing else in the code calls `fs` on a target path
 * (test/architecture/target-access.test.ts).
 *
 * - The root is opened once (a folder the user chose: it may be a symbolic link, followed; nothing below it is).
 * - A key is `/`-separated segments (none empty, `.`, `..`, with a backslash or a NUL), resolved one folder at a time
 *   from the descriptor of the folder above: each folder is opened O_DIRECTORY|O_NOFOLLOW, each file O_NOFOLLOW, so
 *   no link is followed at any component, and nothing is checked by path and then opened by path.
 * - Only regular files are opened: O_NONBLOCK keeps a FIFO (or a device) from blocking a thread of the pool, and the
 *   descriptor's `fstat` refuses anything that is not a regular file at once (`TargetRefusal`).
 * - Names are removed, renamed and linked only in folders opened that way.
 *
 * Node has no openat. On Linux `/proc/self/fd/<dirfd>/<name>` gives its meaning: the kernel resolves the descriptor's
 * folder, then the one name, with the open's flags applying to that name (rename, unlink, mkdir, rmdir, opendir, link
 * alike). Where /proc is not there (macOS, a container without it), the fallback resolves by path and checks identity
 * instead: after each open, every folder of the key and the object opened are looked at again and must be the very
 * ones held (device and inode), or the open is refused. That fallback still leaves a race for removals and renames
 * by name (they have no descriptor to check): docs/SINKS.md says so.
 */
import { constants, type Dirent, type Stats } from 'node:fs';
import {
  link,
  lstat,
  mkdir,
  open,
  opendir,
  readdir,
  rename,
  rmdir,
  stat,
  unlink,
  type FileHandle,
} from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { SinkError } from '../errors.js';
import { errorCode, isLinkRefusal, TargetRefusal, type RefusalKind } from './refusal.js';

const NOFOLLOW: number = constants.O_NOFOLLOW ?? 0;
const NONBLOCK: number = constants.O_NONBLOCK ?? 0;
const DIRECTORY: number = constants.O_DIRECTORY ?? 0;

/**
 * How a file is opened: `read`; `create` (only when nothing is at the name); `append` (made when missing; each write
 * at the end); `replace` (made when missing, else emptied).
 */
export type OpenMode = 'read' | 'create' | 'append' | 'replace';

const FLAGS: Readonly<Record<OpenMode, number>> = {
  read: constants.O_RDONLY,
  create: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
  append: constants.O_RDWR | constants.O_APPEND | constants.O_CREAT,
  replace: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC,
};

/** How names are resolved: through `/proc/self/fd` (openat's meaning), or by path with identity checks. */
export type Resolution = 'proc' | 'path';

export interface TargetOptions {
  /** Forces a resolution (tests run both); default: `proc` where /proc/self/fd resolves the root's descriptor. */
  resolution?: Resolution;
}

export interface Place {
  path: string;
  dev: number;
  ino: number;
}

/** Refuses a key that is not `/`-separated plain segments (empty, `.`, `..`, a backslash, a NUL). */
function checkTargetKey(key: string, target: string): string[] {
  const segments = key.split('/');
  const bad =
    key.length === 0 ||
    key.includes('\\') ||
    key.includes('\0') ||
    segments.some((s) => s === '' || s === '.' || s === '..');
  if (bad)
    throw new SinkError('SINK_PATH_ESCAPE', `key ${JSON.stringify(key.slice(0, 300))} resolves outside the target`, {
      target,
      key,
    });
  return segments;
}

function sameNode(a: { dev: number; ino: number }, b: { dev: number; ino: number }): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/**
 * A folder of the target, open: names in it are reached through its descriptor. Close it once done (the root's
 * `close` does nothing: the target holds it).
 */
export class Dir {
  #closed = false;

  constructor(
    readonly target: Target,
    /** The folder's key (`''` for the root). */
    readonly key: string,
    readonly handle: FileHandle,
    /** The folders from the root to this one (fallback resolution: what each must still be). */
    private readonly chain: readonly Place[],
    private readonly isRoot: boolean,
  ) {}

  /** The path by which the kernel reaches `name` in this folder. */
  pathOf(name: string): string {
    return this.target.resolution === 'proc'
      ? `/proc/self/fd/${this.handle.fd}/${name}`
      : join(this.chain[this.chain.length - 1]!.path, name);
  }

  /** The key of `name` in this folder. */
  keyOf(name: string): string {
    return this.key === '' ? name : `${this.key}/${name}`;
  }

  refusal(name: string, kind: RefusalKind, folder = false): TargetRefusal {
    return new TargetRefusal(this.keyOf(name), kind, this.target.path, folder);
  }

  /**
   * Opens the regular file `name` (never through a link, never blocking on a FIFO); undefined when `read` finds
   * nothing. A link, a special file or a folder there is a `TargetRefusal`.
   */
  async open(name: string, mode: 'read'): Promise<FileHandle | undefined>;
  async open(name: string, mode: Exclude<OpenMode, 'read'>): Promise<FileHandle>;
  async open(name: string, mode: OpenMode): Promise<FileHandle | undefined> {
    return (await this.openFile(name, mode))?.handle;
  }

  /** `open`, with what `fstat` said of the file opened (its device and inode, its size). */
  async openFile(name: string, mode: OpenMode): Promise<{ handle: FileHandle; stats: Stats } | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(name), FLAGS[mode] | NOFOLLOW | NONBLOCK, 0o644);
    } catch (err) {
      const code = errorCode(err);
      if (code === 'ENOENT' && mode === 'read') return undefined;
      if (isLinkRefusal(err)) throw this.refusal(name, 'link');
      // A FIFO without a reader opened for writing, or a socket.
      if (code === 'ENXIO' || code === 'EOPNOTSUPP') throw this.refusal(name, 'special');
      if (code === 'EISDIR') throw this.refusal(name, 'folder');
      throw err;
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw this.refusal(name, stats.isDirectory() ? 'folder' : 'special');
      await this.confirm(name, stats);
      return { handle, stats };
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
  }

  /**
   * The folder `name` in this one, opened (made first with `create`); undefined when there is none and `create` is
   * false. A link or a file there is a `TargetRefusal`. A folder made is flushed into this one.
   */
  async child(name: string, create: boolean): Promise<Dir | undefined> {
    const path = this.pathOf(name);
    let made = false;
    if (create) {
      try {
        await mkdir(path);
        made = true;
      } catch (err) {
        // A link (dangling or not) or a file of that name is EEXIST too: the open below tells.
        if (errorCode(err) !== 'EEXIST') throw err;
      }
    }
    let handle: FileHandle;
    try {
      handle = await open(path, constants.O_RDONLY | DIRECTORY | NOFOLLOW | NONBLOCK);
    } catch (err) {
      const code = errorCode(err);
      if (code === 'ENOENT' && !create) return undefined;
      if (code === 'ENOTDIR' || isLinkRefusal(err)) {
        const st = await lstat(path).catch(() => undefined);
        throw this.refusal(name, st?.isSymbolicLink() === true ? 'link' : 'not-folder', true);
      }
      throw err;
    }
    try {
      // O_DIRECTORY opened a folder. Resolved through /proc, nothing else is needed of it; by path, its identity is kept
      // to be checked again at each use.
      const path = join(this.chain[this.chain.length - 1]!.path, name);
      let place: Place = { path, dev: 0, ino: 0 };
      if (this.target.resolution === 'path') {
        const st = await handle.stat();
        if (!st.isDirectory()) throw this.refusal(name, 'not-folder');
        await this.confirm(name, st);
        place = { path, dev: st.dev, ino: st.ino };
      }
      if (made) await this.sync();
      return new Dir(this.target, this.keyOf(name), handle, [...this.chain, place], false);
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
  }

  /** What is at `name` (a link itself, never followed); undefined when nothing is. */
  async lstat(name: string): Promise<Stats | undefined> {
    await this.confirmChain();
    return lstat(this.pathOf(name)).catch((err: unknown) =>
      errorCode(err) === 'ENOENT' ? undefined : Promise.reject(err),
    );
  }

  /** Removes the entry `name` (a link itself, never what it points to); false when nothing was there. */
  async unlink(name: string): Promise<boolean> {
    await this.confirmChain();
    return unlink(this.pathOf(name)).then(
      () => true,
      (err: unknown) => (errorCode(err) === 'ENOENT' ? false : Promise.reject(err)),
    );
  }

  /** Removes the folder `name` when it is empty; false when it is not, or not there, or not a folder. */
  async rmdir(name: string): Promise<boolean> {
    await this.confirmChain();
    return rmdir(this.pathOf(name)).then(
      () => true,
      () => false,
    );
  }

  /** Renames `name` to `toName` in `to` (replacing what is there: a link itself, never its target). */
  async rename(name: string, to: Dir, toName: string): Promise<void> {
    await this.confirmChain();
    await to.confirmChain();
    await rename(this.pathOf(name), to.pathOf(toName));
  }

  /** A hard link `toName` in `to` to the entry `name` (EEXIST when something is there). */
  async link(name: string, to: Dir, toName: string): Promise<void> {
    await this.confirmChain();
    await to.confirmChain();
    await link(this.pathOf(name), to.pathOf(toName));
  }

  /**
   * The names in this folder, at once (`.`/`..` left out): for a folder that holds few (a device folder); `entries`
   * streams a large one.
   */
  async names(): Promise<string[]> {
    await this.confirmChain();
    return readdir(this.pathOf('.'));
  }

  /** The entries of this folder, streamed (`.`/`..` left out); links are listed as links. */
  async *entries(): AsyncGenerator<Dirent> {
    await this.confirmChain();
    const listing = await opendir(this.pathOf('.'));
    yield* listing;
  }

  /** Flushes the folder's entries (a create, a rename) to the device. Not possible on Windows; skipped there. */
  async sync(): Promise<void> {
    if (process.platform !== 'win32') await this.handle.sync();
  }

  async close(): Promise<void> {
    if (this.isRoot || this.#closed) return;
    this.#closed = true;
    await this.handle.close();
  }

  /** The root's own end (the target's close). */
  async end(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.handle.close();
  }

  /** Fallback resolution: the object opened at `name` is the one there now, under the very folders held. */
  private async confirm(name: string, opened: Stats): Promise<void> {
    if (this.target.resolution === 'proc') return;
    await this.confirmChain();
    const now = await lstat(this.pathOf(name)).catch(() => undefined);
    if (now === undefined || !sameNode(now, opened)) throw this.refusal(name, 'link');
  }

  /** Fallback resolution: every folder from the root to this one is still the one opened (none swapped for a link). */
  private async confirmChain(): Promise<void> {
    if (this.target.resolution === 'proc') return;
    for (let k = 0; k < this.chain.length; k++) {
      const place = this.chain[k]!;
      // The root is used as given (a link the user chose is followed); every folder below must be a real one.
      const st = await (k === 0 ? stat(place.path) : lstat(place.path)).catch(() => undefined);
      if (st === undefined || !st.isDirectory() || !sameNode(st, place)) {
        const key = this.chain
          .slice(1, k + 1)
          .map((p) => p.path.slice(p.path.lastIndexOf('/') + 1))
          .join('/');
        throw new TargetRefusal(key === '' ? '.' : key, 'link', this.target.path, true);
      }
    }
  }
}

/** A local target: its root, opened once (made first by the first writer), and every key resolved beneath it. */
export class Target {
  /** The resolved path of the root (for messages). */
  readonly path: string;
  #resolution: Resolution | undefined;
  #root: Promise<Dir> | undefined;
  #closed = false;

  constructor(
    path: string,
    private readonly options: TargetOptions = {},
  ) {
    this.path = resolve(path);
  }

  /** How names are resolved (known once the root is open). */
  get resolution(): Resolution {
    return this.#resolution ?? 'path';
  }

  /**
   * The root folder, opened once: made first (with its parents) when `create`; undefined when it is not there and
   * `create` is false (looked for again next time).
   */
  async root(create: boolean): Promise<Dir | undefined> {
    if (this.#closed) throw new SinkError('SINK_STATE', 'the target is closed', { target: this.path });
    if (this.#root !== undefined) return this.#root;
    if (!create && (await stat(this.path).catch(() => undefined)) === undefined) return undefined;
    const opening = this.#openRoot(create);
    this.#root = opening;
    opening.catch(() => {
      if (this.#root === opening) this.#root = undefined;
    });
    return opening;
  }

  async #openRoot(create: boolean): Promise<Dir> {
    if (create) await mkdir(this.path, { recursive: true });
    const handle = await open(this.path, constants.O_RDONLY | DIRECTORY | NONBLOCK);
    try {
      const st = await handle.stat();
      if (!st.isDirectory()) throw new TargetRefusal('.', 'not-folder', this.path);
      this.#resolution = this.options.resolution ?? (await procResolves(handle, st));
      return new Dir(this, '', handle, [{ path: this.path, dev: st.dev, ino: st.ino }], true);
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
  }

  /**
   * The folder at `key` (`''`: the root), each component opened no-follow from the one above (made when `create`);
   * undefined when one is missing and `create` is false. Close it once done.
   */
  async folder(key: string, create: boolean): Promise<Dir | undefined> {
    const root = await this.root(create);
    if (root === undefined || key === '') return root;
    let dir: Dir = root;
    for (const name of checkTargetKey(key, this.path)) {
      const parent = dir;
      const next = await parent.child(name, create).finally(() => parent.close());
      if (next === undefined) return undefined;
      dir = next;
    }
    return dir;
  }

  /** The folder holding `key` and the key's last segment; undefined when the folder is missing and not `create`. */
  async parentOf(key: string, create: boolean): Promise<{ dir: Dir; name: string } | undefined> {
    const segments = checkTargetKey(key, this.path);
    const name = segments.pop()!;
    const dir = await this.folder(segments.join('/'), create);
    return dir === undefined ? undefined : { dir, name };
  }

  /** Runs `use` on the folder holding `key` (made when `create`), then closes it; undefined when it is missing. */
  async inParent<T>(key: string, create: boolean, use: (dir: Dir, name: string) => Promise<T>): Promise<T | undefined> {
    const at = await this.parentOf(key, create);
    if (at === undefined) return undefined;
    try {
      return await use(at.dir, at.name);
    } finally {
      await at.dir.close();
    }
  }

  /** Opens the regular file at `key` (see `Dir.open`); folders are made for the modes that write. */
  async openFile(key: string, mode: OpenMode): Promise<FileHandle | undefined> {
    return this.inParent(key, mode !== 'read', (dir, name) =>
      mode === 'read' ? dir.open(name, 'read') : dir.open(name, mode),
    );
  }

  /** What is at `key`, a link itself; undefined when nothing (or a folder on the way is missing). */
  async lstat(key: string): Promise<Stats | undefined> {
    return this.inParent(key, false, (dir, name) => dir.lstat(name));
  }

  /** Ends the root's descriptor. Folders and files still open stay usable until closed. */
  async close(): Promise<void> {
    this.#closed = true;
    const root = await this.#root?.catch(() => undefined);
    this.#root = undefined;
    await root?.end();
  }
}

/** Whether `/proc/self/fd/<fd>` names the root's folder itself (Linux with /proc): openat's meaning by path. */
async function procResolves(handle: FileHandle, st: Stats): Promise<Resolution> {
  if (process.platform !== 'linux') return 'path';
  const through = await stat(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  return through !== undefined && sameNode(through, st) ? 'proc' : 'path';
}
